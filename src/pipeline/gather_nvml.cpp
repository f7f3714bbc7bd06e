// SPDX-License-Identifier: Apache-2.0
// The NVML step of gather: NVLinks and P2P status per caps index, and on a host without
// nvidia-smi the GPUs and matrix too. Recorded fields are explicit in the machine file,
// so the replay answers what this host's NVML answered, not what derived.hpp would say.
#include "pipeline/gather_nvml.hpp"

#include "sources/nvml/nvml_record.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace peergate::pipeline {

namespace {

using nvml::NvmlRecord;

// For each machine GPU (nvidia-smi's order) the position of the same GPU in NVML's order,
// matched by PCI bus id; nullopt when the two tools do not list the same GPUs.
std::optional<std::vector<std::size_t>> nvml_positions(const snapshot::MachineFile& m,
                                                       const NvmlRecord& record) {
    if (record.gpus.size() != m.gpus.size()) {
        return std::nullopt;
    }
    std::vector<std::size_t> positions;
    for (const auto& gpu : m.gpus) {
        const auto found =
            std::find_if(record.gpus.begin(), record.gpus.end(), [&](const nvml::RecordedGpu& r) {
                return r.identity.pci == gpu.pci;
            });
        if (found == record.gpus.end()) {
            return std::nullopt;
        }
        positions.push_back(static_cast<std::size_t>(found - record.gpus.begin()));
    }
    return positions;
}

std::vector<snapshot::MachineNvlink> machine_links(const nvml::RecordedGpu& gpu) {
    std::vector<snapshot::MachineNvlink> links;
    for (const auto& link : gpu.links) {
        links.push_back(snapshot::MachineNvlink{.link = link.link,
                                                .active = link.active,
                                                .remote_type = link.to_switch ? "switch" : "gpu",
                                                .remote_pci = link.remote});
    }
    return links;
}

// The counters the GPU keeps: NVLink5's where any active link answered them alone.
model::NvlinkCounterSet counter_set(const nvml::RecordedGpu& gpu) {
    const bool nvlink5 =
        std::any_of(gpu.links.begin(), gpu.links.end(), [](const nvml::RecordedNvlink& link) {
            return link.active && link.errors.answered_set() == model::NvlinkCounterSet::nvlink5;
        });
    return nvlink5 ? model::NvlinkCounterSet::nvlink5 : model::NvlinkCounterSet::dl;
}

// The active links that answer other than a clean link of the GPU's counter set: a link the
// file does not list replays as one.
std::vector<snapshot::MachineNvlinkErrors> machine_link_errors(const nvml::RecordedGpu& gpu,
                                                               model::NvlinkCounterSet set) {
    const auto clean = model::NvlinkErrorCounts::clean(set);
    std::vector<snapshot::MachineNvlinkErrors> out;
    for (const auto& link : gpu.links) {
        if (link.active && link.errors != clean) {
            out.push_back(snapshot::MachineNvlinkErrors{.link = link.link, .counts = link.errors});
        }
    }
    return out;
}

nvml::StatusMatrix permuted(const nvml::StatusMatrix& matrix, const std::vector<std::size_t>& pos) {
    nvml::StatusMatrix out(pos.size(), std::vector<std::string>(pos.size()));
    for (std::size_t p = 0; p < pos.size(); ++p) {
        for (std::size_t q = 0; q < pos.size(); ++q) {
            out[p][q] = matrix[pos[p]][pos[q]];
        }
    }
    return out;
}

void add_links(const NvmlRecord& record, const std::vector<std::size_t>& pos, GatherState& state) {
    bool any_switch = false;
    for (std::size_t p = 0; p < pos.size(); ++p) {
        const auto& recorded = record.gpus[pos[p]];
        if (!recorded.nvlink_slots) {
            continue;  // unknown: the file keeps deriving this GPU's links (the note says why)
        }
        auto& gpu = state.machine.gpus[p];
        gpu.nvlink_slots = *recorded.nvlink_slots;
        gpu.nvlinks = machine_links(recorded);
        gpu.nvlink_counters = counter_set(recorded);
        gpu.nvlink_errors = machine_link_errors(recorded, gpu.nvlink_counters);
        any_switch = any_switch || std::any_of(recorded.links.begin(),
                                               recorded.links.end(),
                                               [](const nvml::RecordedNvlink& l) {
                                                   return l.active && l.to_switch;
                                               });
    }
    state.machine.nvswitch = any_switch;
}

void add_p2p(const NvmlRecord& record,
             const std::vector<std::size_t>& pos,
             snapshot::MachineFile& m) {
    const std::array<std::vector<std::vector<std::string>>*, nvml::kRecordedCaps> fields{
        &m.nvml_p2p_read,
        &m.nvml_p2p_write,
        &m.nvml_p2p_nvlink,
        &m.nvml_p2p_atomics,
        &m.nvml_p2p_prop};
    for (std::size_t caps = 0; caps < nvml::kRecordedCaps; ++caps) {
        if (record.p2p[caps]) {
            *fields[caps] = permuted(*record.p2p[caps], pos);
        }
    }
}

// NUMA node and CPU list from NVML where topo -m gave none (one GPU: topo -m has no matrix).
void add_affinity(const NvmlRecord& record,
                  const std::vector<std::size_t>& pos,
                  snapshot::MachineFile& m) {
    for (std::size_t p = 0; p < pos.size(); ++p) {
        const auto& id = record.gpus[pos[p]].identity;
        auto& gpu = m.gpus[p];
        if (!gpu.numa_node) {
            gpu.numa_node = id.numa_node;
        }
        if (gpu.cpu_affinity.empty()) {
            gpu.cpu_affinity = id.cpu_affinity;
        }
    }
}

// The fabric registration of GPUs on an NVSwitch fabric and the MIG mode of GPUs with MIG;
// a GPU without either (NOT_SUPPORTED) is left without, as the file says of it.
void add_gpu_modes(const NvmlRecord& record,
                   const std::vector<std::size_t>& pos,
                   snapshot::MachineFile& m) {
    for (std::size_t p = 0; p < pos.size(); ++p) {
        const auto& recorded = record.gpus[pos[p]];
        if (recorded.fabric && recorded.fabric->state != model::FabricState::not_supported) {
            m.gpus[p].fabric = recorded.fabric;
        }
        m.gpus[p].mig = recorded.mig;
    }
}

// No nvidia-smi: the GPUs (and, for two or more, the matrix) come from NVML alone.
void add_gpus_from_nvml(const NvmlRecord& record, GatherState& state) {
    auto& m = state.machine;
    for (const auto& recorded : record.gpus) {
        const auto& id = recorded.identity;
        m.gpus.push_back(snapshot::MachineGpu{.index = id.index,
                                              .name = id.name,
                                              .pci = id.pci.value_or(model::PciAddress{}),
                                              .uuid = id.uuid,
                                              .numa_node = id.numa_node,
                                              .cpu_affinity = id.cpu_affinity});
    }
    if (record.topology) {
        m.matrix = record.topology->matrix;
    } else if (m.gpus.size() == 1) {
        m.matrix = {{model::LinkLabel::self()}};
    }
    state.have_gpus = !m.gpus.empty();
    m.driver_version.clear();  // nvidia-smi tells it; NVML's call for it is not in our table
    state.notes.push_back("nvidia-smi gave no GPU listing: GPUs and matrix recorded from NVML");
}

}  // namespace

void gather_from_nvml(const Context& ctx, GatherState& state) {
    gather_from_nvml_record(nvml::record_nvml(nvml::NvmlRecordOptions{
                                .libraries = ctx.seams.nvml_libraries,
                                .host_root = ctx.seams.host_root,
                                .watchdog = state.driver_watchdog,
                                .with_topology = !state.have_gpus,
                                .simulated_machine = ctx.seams.simulated_machine}),
                            state);
}

void gather_from_nvml_record(util::Expected<nvml::NvmlRecord> record, GatherState& state) {
    if (!record) {
        state.notes.push_back("NVML answers not recorded: " + record.error().message);
        return;
    }
    state.notes.insert(state.notes.end(), record->notes.begin(), record->notes.end());
    if (!state.have_gpus) {
        add_gpus_from_nvml(*record, state);
    }
    const auto positions = nvml_positions(state.machine, *record);
    if (!positions) {
        state.notes.push_back(
            fmt::format("NVML lists {} GPUs that nvidia-smi does not match by PCI bus id: "
                        "NVML answers not recorded",
                        record->gpus.size()));
        return;
    }
    add_links(*record, *positions, state);
    add_p2p(*record, *positions, state.machine);
    add_affinity(*record, *positions, state.machine);
    add_gpu_modes(*record, *positions, state.machine);
}

}  // namespace peergate::pipeline
