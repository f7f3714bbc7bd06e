// SPDX-License-Identifier: Apache-2.0
#include "pipeline/gather_machine.hpp"

#include "model/host_facts.hpp"
#include "peergate/version.hpp"
#include "pipeline/gather_cuda.hpp"
#include "pipeline/gather_nvml.hpp"
#include "pipeline/gather_pci.hpp"
#include "sources/host/cpu_cores.hpp"
#include "sources/host/cpu_identity.hpp"
#include "sources/host/host_facts_reader.hpp"
#include "sources/host/host_name.hpp"
#include "sources/host/host_root.hpp"
#include "sources/host/pci_tree.hpp"
#include "sources/smi/query_gpu_parser.hpp"
#include "sources/smi/smi_runner.hpp"
#include "sources/smi/topo_m_parser.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

namespace peergate::pipeline {

namespace {

constexpr const char* kListingQuery = "--query-gpu=index,name,pci.bus_id,uuid";

std::string run_or_note(const Context& ctx,
                        const std::vector<std::string>& args,
                        GatherState& state) {
    auto text = sources::smi::run_smi(ctx.seams.nvidia_smi, args, ctx.env);
    if (!text) {
        state.notes.push_back(text.error().message);
        return "";
    }
    return *text;
}

// "0, 183359, 570.86.15" lines of --query-gpu=index,memory.total,driver_version (nounits).
void add_memory_and_driver(const std::string& text, snapshot::MachineFile& m) {
    for (const auto line : util::split_lines(text)) {
        const auto fields = util::split(line, ',');
        const auto index =
            fields.size() == 3 ? util::parse_int<int>(util::trim(fields[0])) : std::nullopt;
        for (auto& gpu : m.gpus) {
            if (index && gpu.index == *index) {
                gpu.memory_bytes = util::parse_int<std::uint64_t>(util::trim(fields[1])).value_or(0)
                                   << 20U;
                m.driver_version = std::string(util::trim(fields[2]));
            }
        }
    }
}

// "0, 9.0" lines of --query-gpu=index,compute_cap (older drivers do not know the field).
void add_compute_capability(const std::string& text, snapshot::MachineFile& m) {
    for (const auto line : util::split_lines(text)) {
        const auto fields = util::split(line, ',');
        const auto cc = fields.size() == 2 ? util::split(util::trim(fields[1]), '.')
                                           : std::vector<std::string_view>{};
        const auto index =
            cc.size() == 2 ? util::parse_int<int>(util::trim(fields[0])) : std::nullopt;
        for (auto& gpu : m.gpus) {
            if (index && gpu.index == *index) {
                gpu.cc_major = util::parse_int<int>(cc[0]).value_or(0);
                gpu.cc_minor = util::parse_int<int>(cc[1]).value_or(0);
            }
        }
    }
}

// The matrix in the listing's GPU order, with NUMA node and CPU affinity per GPU.
bool add_matrix(const std::string& topo_text, GatherState& state) {
    auto& m = state.machine;
    if (topo_text.empty()) {
        return false;
    }
    m.recorded_topo_m = topo_text;  // verbatim, parsed or not: a replay prints what the host did
    auto topology = sources::smi::parse_topo_m(topo_text);
    if (!topology) {
        state.notes.push_back(topology.error().message);
        return false;
    }
    m.matrix.assign(m.gpus.size(), {});
    for (auto& gpu : m.gpus) {
        const auto p = topology->position_of(gpu.index);
        for (const auto& peer : m.gpus) {
            const auto label = topology->label(gpu.index, peer.index);
            if (!p || !label) {
                state.notes.push_back(
                    fmt::format("topo -m has no GPU{} to GPU{} pair", gpu.index, peer.index));
                m.matrix.clear();
                return false;
            }
            m.matrix[static_cast<std::size_t>(&gpu - m.gpus.data())].push_back(*label);
        }
        gpu.numa_node = topology->gpus[*p].numa_node;
        gpu.cpu_affinity = topology->gpus[*p].cpu_affinity;
    }
    return true;
}

bool add_gpus(const std::string& listing, GatherState& state) {
    auto gpus = sources::smi::parse_query_gpu(listing);
    if (!gpus) {
        state.notes.push_back(gpus.error().message);
        return false;
    }
    for (const auto& gpu : *gpus) {
        state.machine.gpus.push_back(
            snapshot::MachineGpu{.index = gpu.index,
                                 .name = gpu.name,
                                 .pci = gpu.pci.value_or(model::PciAddress{}),
                                 .uuid = gpu.uuid});
    }
    state.machine.recorded_query_gpu = listing;
    return true;
}

std::string first_translating_type(const sources::host::HostRoot& root) {
    auto groups = root.list("/sys/kernel/iommu_groups");
    for (const auto& group : groups ? *groups : std::vector<std::string>{}) {
        auto type = root.read_text("/sys/kernel/iommu_groups/" + group + "/type");
        if (type && !util::trim(*type).starts_with("identity")) {
            return std::string(util::trim(*type));
        }
    }
    return "";
}

}  // namespace

void gather_from_smi(const Context& ctx, GatherState& state) {
    const std::string listing = run_or_note(ctx, {kListingQuery, "--format=csv,noheader"}, state);
    if (listing.empty() || !add_gpus(listing, state)) {
        return;
    }
    state.have_gpus = true;
    if (!add_matrix(run_or_note(ctx, {"topo", "-m"}, state), state) &&
        state.machine.gpus.size() == 1) {
        state.machine.matrix = {
            {model::LinkLabel::self()}};  // one GPU: topo -m has no pair to show
    }
    state.machine.driver_version.clear();
    add_memory_and_driver(run_or_note(ctx,
                                      {"--query-gpu=index,memory.total,driver_version",
                                       "--format=csv,noheader,nounits"},
                                      state),
                          state.machine);
    add_compute_capability(
        run_or_note(ctx, {"--query-gpu=index,compute_cap", "--format=csv,noheader"}, state),
        state.machine);
}

// The CPUs' kind, so that a replay's export nccl-topo writes the <cpu> this host's would.
void record_cpu_kind(const sources::host::HostRoot& root, snapshot::MachineHost& host) {
    const auto cpu = sources::host::read_cpu_identity(root);
    host.cpu_arch = cpu.arch;
    host.cpu_vendor = cpu.vendor;
    host.cpu_family = cpu.family;
    host.cpu_model = cpu.model;
}

void gather_from_host(const Context& ctx, GatherState& state) {
    const sources::host::HostRoot root(ctx.seams.host_root);
    const auto facts = sources::host::read_host_facts(root);
    auto& host = state.machine.host;
    host.iommu = std::string(model::to_string(facts.iommu));
    host.iommu_group_type =
        facts.iommu == model::IommuMode::translating ? first_translating_type(root) : "";
    host.hypervisor = facts.hypervisor.value_or(false);
    if (!facts.hypervisor) {
        state.notes.push_back("/proc/cpuinfo has no flags line: hypervisor recorded as false");
    }
    host.kernel_cmdline = facts.kernel_cmdline;
    host.boot_id = facts.boot_id;
    host.peer_memory_module = facts.peer_memory_module.value_or("");
    host.kernel_module =
        facts.nvidia_module ? std::string(model::to_string(facts.nvidia_module->flavour)) : "";
    host.kernel_release = facts.kernel_release;
    record_cpu_kind(root, host);
    for (const auto& place : sources::host::cpu_places(root)) {
        host.cpus.push_back({place.cpu, place.package, place.core});
    }
    std::size_t unread = 0;
    for (auto& gpu : state.machine.gpus) {
        auto id = root.read_text("/sys/bus/pci/devices/" + gpu.pci.to_sysfs() + "/device");
        const auto digits = id ? util::trim(*id) : std::string_view();
        gpu.pci_device_id =
            util::parse_hex<std::uint16_t>(digits.substr(digits.starts_with("0x") ? 2 : 0))
                .value_or(0);
        unread += record_gpu_pci(root, gpu);
    }
    if (unread > 0) {
        state.notes.push_back(fmt::format(
            "ACS control of {} PCIe port(s) recorded as unknown: reading configuration space "
            "past 64 bytes needs root",
            unread));
    }
    const auto skipped = record_nics(root, state.machine.nics);
    state.notes.insert(state.notes.end(), skipped.begin(), skipped.end());
}

util::Expected<snapshot::MachineFile> gather_machine(const Context& ctx,
                                                     const std::string& name,
                                                     std::vector<std::string>& notes,
                                                     std::chrono::milliseconds driver_watchdog) {
    GatherState state;
    state.driver_watchdog = driver_watchdog;
    state.machine.name = name;
    state.machine.description =
        fmt::format("Recorded by peergate {} gather on {}.", kVersion, sources::host::host_name());
    gather_from_smi(ctx, state);
    gather_from_nvml(ctx, state);
    notes = state.notes;
    if (!state.have_gpus) {
        return util::unexpected(
            util::ErrorCode::unavailable,
            "no NVIDIA tool listed the GPUs (" + util::join(state.notes, "; ") + ")");
    }
    if (state.machine.matrix.empty()) {
        return util::unexpected(util::ErrorCode::unavailable,
                                "neither nvidia-smi topo -m nor NVML gave a usable matrix (" +
                                    util::join(state.notes, "; ") + ")");
    }
    gather_from_cuda(ctx, state);
    gather_from_host(ctx, state);
    notes = state.notes;
    return state.machine;
}

}  // namespace peergate::pipeline
