// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_topology.hpp"

#include "sources/nvml/nvml_census.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::nvml {

namespace {

// What the walk learnt about one GPU.
struct Device {
    nvmlDevice_t handle = nullptr;
    model::Gpu gpu;
    LinkCensus links;
};

util::Unexpected no_verdict(std::string message) {
    return util::unexpected(util::ErrorCode::unavailable, std::move(message));
}

util::Expected<std::vector<nvmlDevice_t>> device_handles(NvmlCalls& nvml) {
    unsigned count = 0;
    if (const auto rc = nvml(nvml.api().nvmlDeviceGetCount_v2, &count); rc != NVML_SUCCESS) {
        return nvml.failed(rc, "nvmlDeviceGetCount_v2");
    }
    std::vector<nvmlDevice_t> handles(count, nullptr);
    for (unsigned i = 0; i < count; ++i) {
        if (const auto rc = nvml(nvml.api().nvmlDeviceGetHandleByIndex_v2, i, &handles[i]);
            rc != NVML_SUCCESS) {
            return nvml.failed(rc, "nvmlDeviceGetHandleByIndex_v2");
        }
    }
    return handles;
}

// One GPU as a 1x1 matrix: described, with no pair in it. Empty when its identity fails.
std::optional<model::Topology> describe_lone_gpu(NvmlCalls& nvml, nvmlDevice_t handle) {
    auto gpu = read_identity(nvml, handle, 0);
    if (!gpu) {
        return std::nullopt;
    }
    model::Topology topology;
    topology.source = model::TopologySource::nvml;
    topology.gpus.push_back(std::move(*gpu));
    topology.matrix = {{model::LinkLabel::self()}};
    return topology;
}

util::Expected<std::vector<Device>> read_devices(NvmlCalls& nvml,
                                                 const std::vector<nvmlDevice_t>& handles) {
    std::vector<Device> devices;
    for (std::size_t i = 0; i < handles.size(); ++i) {
        Device device{.handle = handles[i]};
        auto gpu = read_identity(nvml, device.handle, static_cast<int>(i));
        if (!gpu) {
            return util::unexpected(gpu.error());
        }
        device.gpu = std::move(*gpu);
        auto links = count_links(nvml, device.handle);
        if (!links) {
            return util::unexpected(links.error());
        }
        device.links = std::move(*links);
        devices.push_back(std::move(device));
    }
    return devices;
}

// NV<n> for a pair NVML calls linked: the links of `a` that end at `b`, or, when the two
// meet through NVSwitches, the smaller of their switch-link counts (a matrix must be
// symmetric, and the narrower end bounds the path). Zero links is a contradiction.
util::Expected<model::LinkLabel> nvlink_label(const Device& a, const Device& b) {
    if (a.links.active == 0 || b.links.active == 0) {
        return no_verdict(
            fmt::format("NVML reports GPUs {} and {} NVLinked while GPU {} has no active NVLink "
                        "(contradiction)",
                        a.gpu.index,
                        b.gpu.index,
                        a.links.active == 0 ? a.gpu.index : b.gpu.index));
    }
    const auto direct = std::count(a.links.to_gpu.begin(), a.links.to_gpu.end(), *b.gpu.pci);
    if (direct > 0) {
        return model::LinkLabel::nvlink(static_cast<int>(direct));
    }
    const int switched = std::min(a.links.to_switch, b.links.to_switch);
    if (switched > 0) {
        return model::LinkLabel::nvlink(switched);
    }
    return no_verdict(fmt::format(
        "NVML reports GPUs {} and {} NVLinked but no active link of GPU {} reaches GPU {} or "
        "an NVSwitch (contradiction)",
        a.gpu.index,
        b.gpu.index,
        a.gpu.index,
        b.gpu.index));
}

util::Expected<model::LinkLabel> pair_label(NvmlCalls& nvml, const Device& a, const Device& b) {
    auto status = nvlink_status(nvml, a.handle, b.handle);
    if (!status) {
        return util::unexpected(
            util::ErrorCode::unavailable,
            fmt::format("GPU {} -> GPU {}: {}", a.gpu.index, b.gpu.index, status.error().message));
    }
    if (*status == NvlinkStatus::linked) {
        return nvlink_label(a, b);
    }
    return pcie_label(nvml, a.handle, b.handle);
}

}  // namespace

std::optional<NvlinkStatus> read_nvlink_status(nvmlGpuP2PStatus_t status) {
    switch (status) {
        case NVML_P2P_STATUS_OK:
            return NvlinkStatus::linked;
        case NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED:
        case NVML_P2P_STATUS_GPU_NOT_SUPPORTED:
        case NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED:
        case NVML_P2P_STATUS_DISABLED_BY_REGKEY:
        case NVML_P2P_STATUS_NOT_SUPPORTED:
            return NvlinkStatus::denied;
        default:
            return std::nullopt;  // UNKNOWN, or a value a newer driver added
    }
}

util::Expected<NvlinkStatus> nvlink_status(NvmlCalls& nvml, nvmlDevice_t a, nvmlDevice_t b) {
    nvmlGpuP2PStatus_t status = NVML_P2P_STATUS_UNKNOWN;
    const auto rc =
        nvml(nvml.api().nvmlDeviceGetP2PStatus, a, b, NVML_P2P_CAPS_INDEX_NVLINK, &status);
    if (rc != NVML_SUCCESS) {
        return nvml.failed(rc, "nvmlDeviceGetP2PStatus(NVLINK)");
    }
    if (const auto answer = read_nvlink_status(status)) {
        return *answer;
    }
    return no_verdict(fmt::format("NVLink P2P status {} ({}) is not a definite answer",
                                  static_cast<int>(status),
                                  status == NVML_P2P_STATUS_UNKNOWN ? "UNKNOWN" : "unrecognised"));
}

std::optional<model::LinkLabel> label_for_ancestor(nvmlGpuTopologyLevel_t level) {
    switch (level) {
        case NVML_TOPOLOGY_INTERNAL:
        case NVML_TOPOLOGY_SINGLE:
            return model::LinkLabel::of(model::LinkKind::pix);
        case NVML_TOPOLOGY_MULTIPLE:
            return model::LinkLabel::of(model::LinkKind::pxb);
        case NVML_TOPOLOGY_HOSTBRIDGE:
            return model::LinkLabel::of(model::LinkKind::phb);
        case NVML_TOPOLOGY_NODE:
            return model::LinkLabel::of(model::LinkKind::node);
        case NVML_TOPOLOGY_SYSTEM:
            return model::LinkLabel::of(model::LinkKind::sys);
        default:
            return std::nullopt;
    }
}

util::Expected<model::LinkLabel> pcie_label(NvmlCalls& nvml, nvmlDevice_t a, nvmlDevice_t b) {
    nvmlGpuTopologyLevel_t level = NVML_TOPOLOGY_SYSTEM;
    const auto rc = nvml(nvml.api().nvmlDeviceGetTopologyCommonAncestor, a, b, &level);
    if (rc != NVML_SUCCESS) {
        return nvml.failed(rc, "nvmlDeviceGetTopologyCommonAncestor");
    }
    if (const auto label = label_for_ancestor(level)) {
        return *label;
    }
    return no_verdict(
        fmt::format("common-ancestor level {} is not one NVML documents", static_cast<int>(level)));
}

util::Expected<model::Topology> read_nvml_topology(NvmlCalls& nvml,
                                                   std::optional<model::Topology>* lone_gpu) {
    auto handles = device_handles(nvml);
    if (!handles) {
        return util::unexpected(handles.error());
    }
    // Fewer than two GPUs has no pair to judge; an empty matrix must never read as NVLinked.
    if (handles->size() < 2) {
        if (handles->size() == 1 && lone_gpu != nullptr) {
            *lone_gpu = describe_lone_gpu(nvml, handles->front());
        }
        return no_verdict(fmt::format("NVML sees {} GPU{}: no pair to judge",
                                      handles->size(),
                                      handles->size() == 1 ? "" : "s"));
    }
    auto devices = read_devices(nvml, *handles);
    if (!devices) {
        return util::unexpected(devices.error());
    }
    model::Topology topology;
    topology.source = model::TopologySource::nvml;
    for (const auto& device : *devices) {
        topology.gpus.push_back(device.gpu);
    }
    const std::size_t n = devices->size();
    topology.matrix.assign(n, std::vector<model::LinkLabel>(n, model::LinkLabel::self()));
    for (std::size_t p = 0; p < n; ++p) {
        for (std::size_t q = 0; q < n; ++q) {
            if (p == q) {
                continue;
            }
            auto label = pair_label(nvml, (*devices)[p], (*devices)[q]);
            if (!label) {
                return util::unexpected(label.error());
            }
            topology.matrix[p][q] = *label;
        }
    }
    if (auto ok = model::check_matrix(topology); !ok) {
        return no_verdict("NVML's matrix fails a check: " + ok.error().message);
    }
    return topology;
}

}  // namespace peergate::nvml
