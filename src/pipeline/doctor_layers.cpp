// SPDX-License-Identifier: Apache-2.0
#include "pipeline/doctor_layers.hpp"

#include "pipeline/gather_cuda.hpp"
#include "pipeline/gather_machine.hpp"
#include "pipeline/gather_nvml.hpp"
#include "policy/doctor/acs.hpp"
#include "sources/host/aer_stats.hpp"
#include "sources/host/network_devices.hpp"
#include "sources/host/pci_attributes.hpp"
#include "sources/host/pci_tree.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <optional>

namespace peergate::pipeline {

namespace {

using Matrix = std::vector<std::vector<std::string>>;

// The gathered status matrices in kP2pCaps order; empty where NVML did not answer.
std::array<const Matrix*, policy::doctor::kP2pCaps.size()> status_matrices(
    const snapshot::MachineFile& m) {
    return {&m.nvml_p2p_read,
            &m.nvml_p2p_write,
            &m.nvml_p2p_nvlink,
            &m.nvml_p2p_atomics,
            &m.nvml_p2p_prop};
}

std::optional<std::size_t> position_of(const snapshot::MachineFile& machine, int index) {
    for (std::size_t p = 0; p < machine.gpus.size(); ++p) {
        if (machine.gpus[p].index == index) {
            return p;
        }
    }
    return std::nullopt;
}

template <typename T>
const T* cell(const std::vector<std::vector<T>>& matrix, std::size_t p, std::size_t q) {
    return p < matrix.size() && q < matrix[p].size() ? &matrix[p][q] : nullptr;
}

policy::doctor::PairLayers pair_layers(const snapshot::MachineFile& machine,
                                       const model::Topology& topology,
                                       int src,
                                       int dst) {
    policy::doctor::PairLayers pair{.src = src, .dst = dst};
    if (const auto label = topology.label(src, dst)) {
        pair.label = label->to_token();
    }
    const auto p = position_of(machine, src);
    const auto q = position_of(machine, dst);
    if (!p || !q) {
        return pair;  // a GPU the tools did not list
    }
    const auto matrices = status_matrices(machine);
    for (std::size_t caps = 0; caps < matrices.size(); ++caps) {
        if (const auto* token = cell(*matrices[caps], *p, *q)) {
            pair.nvml[caps] = *token;
        }
    }
    if (const auto* can = cell(machine.cuda_can_access_peer, *p, *q)) {
        pair.cuda_can_access_peer = *can != 0;
    }
    return pair;
}

std::vector<int> examined(const model::Topology& topology, const std::vector<int>& selection) {
    if (!selection.empty()) {
        return selection;
    }
    std::vector<int> all;
    for (const auto& gpu : topology.gpus) {
        all.push_back(gpu.index);
    }
    return all;
}

// The GPUs as the doctor's topology lists them, so that gather's steps match NVML's and
// CUDA's answers to them by PCI bus id without running nvidia-smi again.
bool seed_gpus(const model::Topology& topology, GatherState& state) {
    for (const auto& gpu : topology.gpus) {
        if (!gpu.pci) {
            state.machine.gpus.clear();
            return false;
        }
        state.machine.gpus.push_back(snapshot::MachineGpu{
            .index = gpu.index, .name = gpu.name, .pci = *gpu.pci, .uuid = gpu.uuid});
    }
    state.have_gpus = true;
    return true;
}

util::Expected<std::vector<model::PciPort>> ports_of(const sources::host::HostRoot& root,
                                                     const model::Topology& topology,
                                                     int index) {
    const auto position = topology.position_of(index);
    if (!position || !topology.gpus[*position].pci) {
        return util::unexpected(util::ErrorCode::unavailable, "no PCI bus id");
    }
    return sources::host::ports_above(root, *topology.gpus[*position].pci);
}

// What sysfs says of one GPU or port: its link and, where AER is on, its error counters.
void read_device(const sources::host::HostRoot& root,
                 const model::PciAddress& address,
                 policy::doctor::DoctorInput& input) {
    input.pci[address] = sources::host::read_pci_attributes(root, address);
    if (auto aer = sources::host::read_aer(root, address)) {
        input.aer[address] = std::move(*aer);
    }
}

// The host's NICs (GPUDirect RDMA's other ends) and, for each physical one, its own link's
// ends (nic_link_narrow) and its AER counters (nic_aer_errors), from sysfs.
void read_nic_layers(const sources::host::HostRoot& root, policy::doctor::DoctorInput& input) {
    input.nics = sources::host::read_nics(root);
    for (const auto& nic : input.nics) {
        if (!nic.physical_function && !nic.path.ports.empty()) {
            read_device(root, nic.path.device, input);
            const auto& port = nic.path.ports.front().address;
            input.pci.try_emplace(port, sources::host::read_pci_attributes(root, port));
        }
    }
}

// The PCIe ports above each GPU examined and the link attributes of the GPU and each port,
// from sysfs under the host root; a GPU whose ports cannot be read is left out (its pairs'
// ACS stays unread) and the first reason is noted.
void read_ports(const Context& ctx,
                const model::Topology& topology,
                const std::vector<int>& gpus,
                policy::doctor::DoctorInput& input) {
    const sources::host::HostRoot root(ctx.seams.host_root);
    std::string first_failure;
    std::string first_unread;
    for (int index : gpus) {
        auto ports = ports_of(root, topology, index);
        if (!ports) {
            first_failure = first_failure.empty()
                                ? fmt::format("GPU {}: {}", index, ports.error().message)
                                : first_failure;
            continue;
        }
        const auto& gpu = topology.gpus[*topology.position_of(index)];
        read_device(root, *gpu.pci, input);
        for (const auto& port : *ports) {
            first_unread = first_unread.empty() ? port.unread : first_unread;
            read_device(root, port.address, input);
        }
        input.ports[index] = std::move(*ports);
    }
    if (!first_failure.empty()) {
        input.layer_notes.push_back("PCIe ports (ACS) not read: " + first_failure);
    }
    if (!first_unread.empty()) {
        input.layer_notes.push_back("ACS control not read (run as root to read it): " +
                                    first_unread);
    }
}

std::string acs_of(const policy::doctor::DoctorInput& input, int src, int dst) {
    const auto a = input.ports.find(src);
    const auto b = input.ports.find(dst);
    if (a == input.ports.end() || b == input.ports.end()) {
        return "";
    }
    return std::string(to_string(policy::doctor::acs_path(a->second, b->second).state));
}

// An active link's error counters: as the file lists them, else a clean link of the GPU's
// counter set (gather lists only the links that answer otherwise).
model::LinkErrors errors_of(const snapshot::MachineGpu& gpu, int link) {
    const auto listed = std::find_if(
        gpu.nvlink_errors.begin(),
        gpu.nvlink_errors.end(),
        [&](const snapshot::MachineNvlinkErrors& entry) { return entry.link == link; });
    if (listed != gpu.nvlink_errors.end()) {
        return model::LinkErrors{.link = link, .counts = listed->counts};
    }
    return model::LinkErrors{.link = link,
                             .counts = model::NvlinkErrorCounts::clean(gpu.nvlink_counters)};
}

// What NVML's walk found on each GPU's links; GPUs it could not walk are left out.
std::vector<policy::doctor::GpuLinks> links_of(const snapshot::MachineFile& machine) {
    std::vector<policy::doctor::GpuLinks> out;
    for (const auto& gpu : machine.gpus) {
        if (gpu.nvlink_slots <= 0 || gpu.nvlinks.empty()) {
            continue;
        }
        policy::doctor::GpuLinks links{
            .gpu = gpu.index, .name = gpu.name, .slots = gpu.nvlink_slots};
        std::vector<bool> up(static_cast<std::size_t>(gpu.nvlink_slots), false);
        for (const auto& link : gpu.nvlinks) {
            if (link.active && link.link >= 0 && link.link < gpu.nvlink_slots) {
                up[static_cast<std::size_t>(link.link)] = true;
                links.to_switch += link.remote_type == "switch" ? 1 : 0;
                links.errors.push_back(errors_of(gpu, link.link));
            }
        }
        for (int k = 0; k < gpu.nvlink_slots; ++k) {
            if (!up[static_cast<std::size_t>(k)]) {
                links.down.push_back(k);
            }
        }
        out.push_back(std::move(links));
    }
    return out;
}

// Per GPU: the driver's DMA-BUF answer, the fabric registration and MIG mode NVML gave.
void take_gpu_answers(const snapshot::MachineFile& machine, policy::doctor::DoctorInput& input) {
    for (const auto& gpu : machine.gpus) {
        if (gpu.cuda_dma_buf) {
            input.dma_buf[gpu.index] = *gpu.cuda_dma_buf;
        }
        if (gpu.fabric) {
            input.fabric[gpu.index] = *gpu.fabric;
        }
        if (gpu.mig) {
            input.mig[gpu.index] = *gpu.mig;
        }
    }
}

}  // namespace

void read_pair_layers(const Context& ctx,
                      const model::Topology& topology,
                      util::Expected<nvml::NvmlRecord> nvml_record,
                      policy::doctor::DoctorInput& input) {
    const auto gpus = examined(topology, input.selection);
    read_ports(ctx, topology, gpus, input);  // a lone GPU's too: export nccl-topo places it
    read_nic_layers(sources::host::HostRoot(ctx.seams.host_root), input);
    if (gpus.empty()) {
        return;
    }
    // A lone GPU's driver layers too: the CUDA version (peergate_info) and whether the GPU can
    // hand a NIC its memory as DMA-BUF (GPUDirect RDMA) do not need a pair.
    GatherState state;
    if (!seed_gpus(topology, state)) {
        gather_from_smi(ctx, state);
    }
    gather_from_nvml_record(std::move(nvml_record), state);
    if (state.have_gpus) {
        state.machine.cuda_driver_version = 0;  // set only where the driver answers
        gather_from_cuda(ctx, state);
        input.cuda_driver_version = state.machine.cuda_driver_version;
        input.cuda_open_status = state.cuda_open_status;
    }
    input.layer_notes.insert(input.layer_notes.begin(), state.notes.begin(), state.notes.end());
    take_gpu_answers(state.machine, input);
    if (gpus.size() < 2) {
        return;  // no pair; and a lone GPU's NVLinks (in a VM, say) join it to nothing here
    }
    input.links = links_of(state.machine);
    for (int src : gpus) {
        for (int dst : gpus) {
            if (src != dst) {
                input.pairs.push_back(pair_layers(state.machine, topology, src, dst));
                input.pairs.back().acs = acs_of(input, src, dst);
            }
        }
    }
}

void read_counters_after_probe(const Context& ctx,
                               const model::Topology& topology,
                               policy::doctor::DoctorInput& input) {
    const sources::host::HostRoot root(ctx.seams.host_root);
    for (const auto& [address, aer] : input.aer) {
        if (auto again = sources::host::read_aer(root, address)) {
            input.aer_after_probe[address] = std::move(*again);
        }
    }
    if (input.links.empty()) {
        return;  // no NVLink walked before the probe: nothing to compare with
    }
    GatherState state;
    if (!seed_gpus(topology, state)) {
        return;  // the layers were matched through nvidia-smi's listing; so were the links
    }
    gather_from_nvml(ctx, state);
    for (const auto& note : state.notes) {
        input.layer_notes.push_back("after the probe: " + note);
    }
    input.links_after_probe = links_of(state.machine);
}

}  // namespace peergate::pipeline
