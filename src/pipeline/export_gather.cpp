// SPDX-License-Identifier: Apache-2.0
#include "pipeline/export_gather.hpp"

#include "peergate/version.hpp"
#include "pipeline/assess_machine.hpp"
#include "report/exports/prometheus.hpp"
#include "sources/host/cpu_cores.hpp"
#include "sources/host/cpu_identity.hpp"
#include "sources/host/device_minor.hpp"
#include "sources/host/host_name.hpp"
#include "sources/host/numa_cpumap.hpp"
#include "sources/host/pci_attributes.hpp"
#include "util/atomic_file.hpp"

#include <chrono>

namespace peergate::pipeline {

namespace {

// slurmd's name for the node: --node-name, else SLURMD_NODENAME, else the short host name.
std::string node_name(const Context& ctx, const ExportRequest& options) {
    if (!options.node_name.empty()) {
        return options.node_name;
    }
    return ctx.env.get("SLURMD_NODENAME").value_or(sources::host::short_host_name());
}

// What nccl-topo writes beyond the doctor's facts: the host's network functions, sysfs's
// attributes of every examined GPU, every NIC and the ports above them, and the cpumap of
// each NUMA node they name, and the CPUs' kind.
void add_pci_tree(const sources::host::HostRoot& root, report::exports::ExportFacts& facts) {
    facts.nics = facts.doctor.nics;  // the doctor's layers read them
    facts.cpu = sources::host::read_cpu_identity(root);
    std::vector<model::PciAddress> read;
    for (const auto& gpu : report::exports::examined_gpus(facts)) {
        if (gpu.pci) {
            read.push_back(*gpu.pci);
        }
    }
    for (const auto& [index, ports] : facts.doctor.ports) {
        for (const auto& port : ports) {
            read.push_back(port.address);
        }
    }
    for (const auto& nic : facts.nics) {
        read.push_back(nic.path.device);
        for (const auto& port : nic.path.ports) {
            read.push_back(port.address);
        }
    }
    for (const auto& address : read) {
        facts.pci[address] = sources::host::read_pci_attributes(root, address);
        const int node = facts.pci[address].numa_node.value_or(-1);
        if (const auto mask = sources::host::read_numa_cpumap(root, node)) {
            facts.numa_cpumaps[node] = *mask;
        }
    }
}

}  // namespace

std::string this_host_short_name() {
    return sources::host::short_host_name();
}

util::Expected<report::exports::ExportFacts> gather_export_facts(const Context& ctx,
                                                                 const ExportRequest& options) {
    const auto started = std::chrono::steady_clock::now();
    report::exports::ExportFacts facts;
    auto assessed = assess_machine(ctx, options.doctor, options.identity_helper);
    if (!assessed) {
        return util::unexpected(assessed.error());
    }
    facts.doctor = std::move(assessed->input);
    facts.report = std::move(assessed->report);
    facts.gate = assessed->gate;
    facts.assessment = std::move(assessed->assessment);
    if (const auto* topology = facts.doctor.discovery.described()) {
        const sources::host::HostRoot root(ctx.seams.host_root);
        facts.device_minors = sources::host::read_device_minors(root, topology->gpus);
        facts.logical_cores = sources::host::logical_cores(root);
        if (options.pci_tree) {
            add_pci_tree(root, facts);
        }
    }
    facts.run = report::exports::ExportRun{
        .version = kVersion,
        .finished_unix = std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count(),
        .duration_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
        .node_name = node_name(ctx, options),
        .gres_type = options.gres_type,
        .expiry_seconds = std::int64_t{options.expiry_hours} * 3600,
        .nfd_timestamp = options.nfd_timestamp,
        .dot_all_paths = options.dot_all_paths};
    return facts;
}

}  // namespace peergate::pipeline
