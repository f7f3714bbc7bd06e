// SPDX-License-Identifier: Apache-2.0
#include "sim/nvml/sim_nvml_machine.hpp"

#include "snapshot/derived.hpp"
#include "sources/nvml/nvml_abi.hpp"
#include "util/strings.hpp"

#include <algorithm>

namespace peergate::sim::nvml {

namespace {

SimLink sim_link(const snapshot::MachineNvlink& link, const model::PciAddress& any_switch) {
    const bool to_switch = link.remote_type == "switch";
    return SimLink{link.active,
                   to_switch,
                   link.remote_pci.value_or(to_switch ? any_switch : model::PciAddress{})};
}

}  // namespace

SimMachine derive_machine(snapshot::MachineFile file) {
    SimMachine machine;
    const auto switches = snapshot::nvswitch_addresses(file);
    const model::PciAddress any_switch =
        switches.empty() ? model::PciAddress{0, 0xC0, 0, 0} : switches.front();
    for (std::size_t p = 0; p < file.gpus.size(); ++p) {
        SimGpu gpu{.gpu = file.gpus[p], .links = {}};
        // The same links the simulated nvidia-smi and CUDA see (snapshot/derived.hpp),
        // placed at their link index; the slots past them are inactive links.
        for (const auto& link : snapshot::gpu_nvlinks(file, p)) {
            const auto slot = static_cast<std::size_t>(std::max(0, link.link));
            if (gpu.links.size() <= slot) {
                gpu.links.resize(slot + 1, SimLink{false, false, {}});
            }
            gpu.links[slot] = sim_link(link, any_switch);
        }
        const auto slots = static_cast<std::size_t>(std::max(0, file.gpus[p].nvlink_slots));
        if (gpu.links.size() < slots) {
            gpu.links.resize(slots, SimLink{false, false, {}});
        }
        machine.gpus.push_back(std::move(gpu));
    }
    machine.file = std::move(file);
    return machine;
}

int p2p_status(const SimMachine& machine, int caps, std::size_t p, std::size_t q) {
    if (caps < NVML_P2P_CAPS_INDEX_READ || caps > NVML_P2P_CAPS_INDEX_PROP) {
        return NVML_P2P_STATUS_UNKNOWN;
    }
    return snapshot::p2p_status_code(
        snapshot::p2p_status_token(machine.file, static_cast<snapshot::P2pCaps>(caps), p, q));
}

int ancestor_level(const SimMachine& machine, std::size_t p, std::size_t q) {
    using model::LinkKind;
    const auto& label = machine.file.matrix[p][q];
    switch (label.kind) {
        case LinkKind::self:
            return NVML_TOPOLOGY_INTERNAL;
        case LinkKind::pix:
            return NVML_TOPOLOGY_SINGLE;
        case LinkKind::pxb:
            return NVML_TOPOLOGY_MULTIPLE;
        case LinkKind::phb:
            return NVML_TOPOLOGY_HOSTBRIDGE;
        case LinkKind::node:
            return NVML_TOPOLOGY_NODE;
        case LinkKind::sys:
            return NVML_TOPOLOGY_SYSTEM;
        default:
            break;
    }
    const auto& a = machine.file.gpus[p].numa_node;
    const auto& b = machine.file.gpus[q].numa_node;
    return a && b && *a == *b ? NVML_TOPOLOGY_NODE : NVML_TOPOLOGY_SYSTEM;
}

std::optional<std::uint64_t> nvlink_error_count(const SimGpu& gpu,
                                                unsigned link,
                                                model::NvlinkCounter counter,
                                                int session) {
    const auto k = static_cast<std::size_t>(counter);
    for (const auto& entry : gpu.gpu.nvlink_errors) {
        if (entry.link == static_cast<int>(link)) {
            if (!entry.counts.value[k]) {
                return std::nullopt;
            }
            const auto later = static_cast<std::uint64_t>(std::max(session - 1, 0));
            return *entry.counts.value[k] + entry.growth[k] * later;
        }
    }
    // An unlisted link counts no errors on the counters its GPU keeps.
    return model::in_set(counter, gpu.gpu.nvlink_counters) ? std::optional<std::uint64_t>(0)
                                                           : std::nullopt;
}

void fill_field_value(const SimGpu& gpu, int session, nvmlFieldValue_t* value) {
    std::optional<model::NvlinkCounter> counter;
    if (value->fieldId == NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS) {
        counter = model::NvlinkCounter::link_recovery_events;
    } else if (value->fieldId == NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS) {
        counter = model::NvlinkCounter::effective_errors;
    }
    if (!counter) {
        value->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        return;
    }
    if (value->scopeId >= gpu.links.size() || !gpu.links[value->scopeId].active) {
        value->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
        return;
    }
    const auto count = nvlink_error_count(gpu, value->scopeId, *counter, session);
    value->nvmlReturn = count ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
    value->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    value->value.ullVal = count.value_or(0);
}

namespace {

template <typename Info>
void fill_common(const model::GpuFabric& fabric, Info* info) {
    const auto uuid =
        model::parse_cluster_uuid(fabric.cluster_uuid).value_or(model::ClusterUuidBytes{});
    std::copy(uuid.begin(), uuid.end(), std::begin(info->clusterUuid));
    info->status = static_cast<nvmlReturn_t>(fabric.status);
    info->cliqueId = fabric.clique_id;
    info->state = static_cast<nvmlGpuFabricState_t>(fabric.state);
}

}  // namespace

nvmlReturn_t fabric_info(const snapshot::MachineGpu& gpu, nvmlGpuFabricInfo_t* info) {
    if (!gpu.fabric) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    if (info == nullptr) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    fill_common(*gpu.fabric, info);
    return NVML_SUCCESS;
}

nvmlReturn_t fabric_info(const snapshot::MachineGpu& gpu, nvmlGpuFabricInfo_v2_t* info) {
    if (!gpu.fabric) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    if (info == nullptr) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    if (info->version != NVML_GPU_FABRIC_INFO_V2) {
        return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    }
    fill_common(*gpu.fabric, info);
    info->healthMask = gpu.fabric->health_mask.value_or(0);
    return NVML_SUCCESS;
}

nvmlReturn_t mig_mode(const snapshot::MachineGpu& gpu, unsigned* current, unsigned* pending) {
    if (!gpu.mig) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    if (current == nullptr || pending == nullptr) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *current = gpu.mig->enabled ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    *pending = gpu.mig->pending ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    return NVML_SUCCESS;
}

std::vector<std::uint64_t> cpu_words(const std::string& list, unsigned words) {
    std::vector<std::uint64_t> out(words, 0);
    auto set = [&](unsigned cpu) {
        if (cpu / 64 < words) {
            out[cpu / 64] |= std::uint64_t{1} << (cpu % 64);
        }
    };
    for (const auto part : util::split(list, ',')) {
        const auto dash = part.find('-');
        const auto first = util::parse_int<unsigned>(util::trim(part.substr(0, dash)));
        const auto last = dash == std::string_view::npos
                              ? first
                              : util::parse_int<unsigned>(util::trim(part.substr(dash + 1)));
        if (!first || !last) {
            continue;  // a malformed entry adds no CPU
        }
        for (unsigned cpu = *first; cpu <= *last && cpu < 64U * words; ++cpu) {
            set(cpu);
        }
    }
    return out;
}

}  // namespace peergate::sim::nvml
