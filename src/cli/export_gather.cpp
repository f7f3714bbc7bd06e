// SPDX-License-Identifier: Apache-2.0
#include "cli/export_gather.hpp"

#include "cli/gate_pipeline.hpp"
#include "peergate/version.hpp"
#include "report/export_prometheus.hpp"
#include "sources/host/cpu_cores.hpp"
#include "sources/host/device_minor.hpp"
#include "sources/host/host_name.hpp"
#include "sources/host/numa_cpumap.hpp"
#include "sources/host/pci_attributes.hpp"
#include "util/atomic_file.hpp"

#include <chrono>

namespace peergate::cli {

namespace {

// slurmd's name for the node: --node-name, else SLURMD_NODENAME, else the short host name.
std::string node_name(const Invocation& inv, const ExportRequest& options) {
    if (!options.node_name.empty()) {
        return options.node_name;
    }
    return inv.env.get("SLURMD_NODENAME").value_or(sources::host::short_host_name());
}

// The gate's decision for the GPUs examined, on the topology the doctor read.
report::ExportGate gate_verdict(const Invocation& inv,
                                const std::string& gpus,
                                const model::Discovery& discovery) {
    auto request = parse_gate_request(gpus, "all");
    if (!request) {
        return {.p2p = false, .rule = "usage_error", .reason = request.error().message};
    }
    const auto decision =
        decide_safely([&] { return gate_input_from(discovery, inv.seams, inv.env, *request); },
                      inv.env,
                      *request);
    return {.p2p = decision.p2p, .rule = decision.rule, .reason = decision.reason};
}

// sysfs's attributes of every examined GPU and of the ports above each.
std::map<model::PciAddress, model::PciAttributes> pci_attributes(
    const sources::host::HostRoot& root, const report::ExportFacts& facts) {
    std::map<model::PciAddress, model::PciAttributes> out;
    for (const auto& gpu : report::examined_gpus(facts)) {
        if (gpu.pci) {
            out[*gpu.pci] = sources::host::read_pci_attributes(root, *gpu.pci);
        }
    }
    for (const auto& [index, ports] : facts.doctor.ports) {
        for (const auto& port : ports) {
            out[port.address] = sources::host::read_pci_attributes(root, port.address);
        }
    }
    return out;
}

}  // namespace

util::Expected<report::ExportFacts> gather_export_facts(const Invocation& inv,
                                                        const ExportRequest& options) {
    const auto started = std::chrono::steady_clock::now();
    report::ExportFacts facts;
    auto doctor = gather_doctor_input(inv, options.doctor);
    if (!doctor) {
        return util::unexpected(doctor.error());
    }
    facts.doctor = std::move(*doctor);
    facts.report = policy::diagnose(facts.doctor);
    facts.gate = gate_verdict(inv, options.doctor.gpus, facts.doctor.discovery);
    if (const auto* topology = facts.doctor.discovery.described()) {
        const sources::host::HostRoot root(inv.seams.host_root);
        facts.device_minors = sources::host::read_device_minors(root, topology->gpus);
        facts.logical_cores = sources::host::logical_cores(root);
        facts.pci = pci_attributes(root, facts);
        for (const auto& [address, attributes] : facts.pci) {
            const int node = attributes.numa_node.value_or(-1);
            if (const auto mask = sources::host::read_numa_cpumap(root, node)) {
                facts.numa_cpumaps[node] = *mask;
            }
        }
    }
    facts.run = report::ExportRun{
        .version = kVersion,
        .finished_unix = std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count(),
        .duration_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
        .node_name = node_name(inv, options),
        .gres_type = options.gres_type,
        .expiry_seconds = std::int64_t{options.expiry_hours} * 3600};
    return facts;
}

}  // namespace peergate::cli
