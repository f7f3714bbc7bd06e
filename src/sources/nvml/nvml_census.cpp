// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_census.hpp"

#include <fmt/format.h>

#include <array>
#include <cstring>
#include <fstream>
#include <optional>
#include <string_view>

namespace peergate::nvml {

namespace {

using Word = unsigned long;  // NOLINT(google-runtime-int): NVML's bitmask word
constexpr unsigned kWordBits = 64;
// Link indices beyond this are never valid on any GPU (NVML_NVLINK_MAX_LINKS is 18 in
// current headers); the bound only stops a library that never says INVALID_ARGUMENT.
constexpr unsigned kLinkIndexLimit = 64;
// 64 words = 4096 CPUs: a short buffer silently truncates the list (docs/driver-facts.md).
constexpr unsigned kCpuWords = 64;
constexpr unsigned kNodeWords = 16;

std::string c_string(const char* buffer, std::size_t size) {
    return {buffer, ::strnlen(buffer, size)};
}

// PCI class 0x0680 ("other bridge") is what an NVSwitch reports; read from sysfs when
// NVML cannot say the remote device type itself.
bool sysfs_says_nvswitch(const std::string& host_root, const model::PciAddress& pci) {
    std::ifstream in(host_root + "/sys/bus/pci/devices/" + pci.to_sysfs() + "/class");
    std::string pci_class;
    in >> pci_class;
    return pci_class.rfind("0x0680", 0) == 0;
}

// True when link `link` ends at an NVSwitch. RemoteDeviceType is optional (older drivers
// lack it); without a definite answer the PCI class of the far end decides.
bool ends_at_switch(NvmlCalls& nvml,
                    nvmlDevice_t device,
                    unsigned link,
                    const model::PciAddress& remote) {
    if (nvml.api().nvmlDeviceGetNvLinkRemoteDeviceType != nullptr) {
        nvmlIntNvLinkDeviceType_t type = NVML_NVLINK_DEVICE_TYPE_UNKNOWN;
        if (nvml(nvml.api().nvmlDeviceGetNvLinkRemoteDeviceType, device, link, &type) ==
                NVML_SUCCESS &&
            type != NVML_NVLINK_DEVICE_TYPE_UNKNOWN) {
            return type == NVML_NVLINK_DEVICE_TYPE_SWITCH;
        }
    }
    return sysfs_says_nvswitch(nvml.host_root(), remote);
}

std::optional<int> numa_node_of(NvmlCalls& nvml, nvmlDevice_t device) {
    if (nvml.api().nvmlDeviceGetMemoryAffinity == nullptr) {
        return std::nullopt;
    }
    std::array<Word, kNodeWords> nodes{};
    if (nvml(nvml.api().nvmlDeviceGetMemoryAffinity,
             device,
             kNodeWords,
             nodes.data(),
             NVML_AFFINITY_SCOPE_NODE) != NVML_SUCCESS) {
        return std::nullopt;
    }
    // One node is an answer; several (or none) is not one node, so it stays unknown.
    std::optional<int> node;
    for (unsigned w = 0; w < kNodeWords; ++w) {
        for (unsigned bit = 0; bit < kWordBits; ++bit) {
            if ((nodes[w] >> bit) & 1U) {
                if (node) {
                    return std::nullopt;
                }
                node = static_cast<int>(w * kWordBits + bit);
            }
        }
    }
    return node;
}

std::string cpu_list_of(NvmlCalls& nvml, nvmlDevice_t device) {
    if (nvml.api().nvmlDeviceGetCpuAffinity == nullptr) {
        return {};
    }
    std::vector<Word> words(kCpuWords, 0);
    if (nvml(nvml.api().nvmlDeviceGetCpuAffinity, device, kCpuWords, words.data()) !=
        NVML_SUCCESS) {
        return {};
    }
    return render_cpu_list(words);
}

}  // namespace

bool link_ends_at_switch(NvmlCalls& nvml,
                         nvmlDevice_t device,
                         unsigned link,
                         const model::PciAddress& remote) {
    return ends_at_switch(nvml, device, link, remote);
}

util::Expected<model::PciAddress> pci_of(const nvmlPciInfo_t& info) {
    const std::string text = c_string(info.busId, sizeof info.busId);
    if (!text.empty()) {
        return model::PciAddress::parse(text);
    }
    if (info.bus > 0xFF || info.device > 0x1F) {
        return util::unexpected(util::ErrorCode::invalid_input, "NVML gave no usable PCI bus id");
    }
    return model::PciAddress{.domain = info.domain,
                             .bus = static_cast<std::uint8_t>(info.bus),
                             .device = static_cast<std::uint8_t>(info.device),
                             .function = 0};
}

std::string render_cpu_list(const std::vector<Word>& words) {
    std::string out;
    const unsigned total = static_cast<unsigned>(words.size()) * kWordBits;
    auto is_set = [&](unsigned cpu) {
        return ((words[cpu / kWordBits] >> (cpu % kWordBits)) & 1U) != 0;
    };
    for (unsigned cpu = 0; cpu < total;) {
        if (!is_set(cpu)) {
            ++cpu;
            continue;
        }
        unsigned last = cpu;
        while (last + 1 < total && is_set(last + 1)) {
            ++last;
        }
        out += (out.empty() ? "" : ",") +
               (last == cpu ? fmt::format("{}", cpu) : fmt::format("{}-{}", cpu, last));
        cpu = last + 1;
    }
    return out;
}

util::Expected<LinkCensus> count_links(NvmlCalls& nvml, nvmlDevice_t device) {
    LinkCensus census;
    for (unsigned link = 0; link < kLinkIndexLimit; ++link) {
        nvmlEnableState_t state = NVML_FEATURE_DISABLED;
        const nvmlReturn_t rc = nvml(nvml.api().nvmlDeviceGetNvLinkState, device, link, &state);
        if (rc == NVML_ERROR_INVALID_ARGUMENT || rc == NVML_ERROR_NOT_SUPPORTED) {
            break;  // past the GPU's own link count, or no NVLink at all: the census is whole
        }
        if (rc != NVML_SUCCESS) {
            return nvml.failed(rc, "nvmlDeviceGetNvLinkState");
        }
        if (state != NVML_FEATURE_ENABLED) {
            continue;
        }
        ++census.active;
        nvmlPciInfo_t remote{};
        const nvmlReturn_t remote_rc =
            nvml(nvml.api().nvmlDeviceGetNvLinkRemotePciInfo_v2, device, link, &remote);
        if (remote_rc != NVML_SUCCESS) {
            return nvml.failed(remote_rc, "nvmlDeviceGetNvLinkRemotePciInfo_v2");
        }
        auto remote_pci = pci_of(remote);
        if (!remote_pci) {
            return util::unexpected(
                util::ErrorCode::unavailable,
                "an active NVLink has no readable far end: " + remote_pci.error().message);
        }
        if (ends_at_switch(nvml, device, link, *remote_pci)) {
            ++census.to_switch;
        } else {
            census.to_gpu.push_back(*remote_pci);
        }
    }
    return census;
}

util::Expected<model::Gpu> read_identity(NvmlCalls& nvml, nvmlDevice_t device, int index) {
    model::Gpu gpu{.index = index};
    nvmlPciInfo_t info{};
    if (const auto rc = nvml(nvml.api().nvmlDeviceGetPciInfo_v3, device, &info);
        rc != NVML_SUCCESS) {
        return nvml.failed(rc, "nvmlDeviceGetPciInfo_v3");
    }
    auto pci = pci_of(info);
    if (!pci) {
        return util::unexpected(util::ErrorCode::unavailable,
                                fmt::format("GPU {}: {}", index, pci.error().message));
    }
    gpu.pci = *pci;
    std::array<char, NVML_DEVICE_NAME_V2_BUFFER_SIZE> name{};
    if (const auto rc = nvml(
            nvml.api().nvmlDeviceGetName, device, name.data(), NVML_DEVICE_NAME_V2_BUFFER_SIZE);
        rc != NVML_SUCCESS) {
        return nvml.failed(rc, "nvmlDeviceGetName");
    }
    gpu.name = c_string(name.data(), name.size());
    std::array<char, NVML_DEVICE_UUID_V2_BUFFER_SIZE> uuid{};
    if (const auto rc = nvml(
            nvml.api().nvmlDeviceGetUUID, device, uuid.data(), NVML_DEVICE_UUID_V2_BUFFER_SIZE);
        rc != NVML_SUCCESS) {
        return nvml.failed(rc, "nvmlDeviceGetUUID");
    }
    gpu.uuid = c_string(uuid.data(), uuid.size());
    gpu.numa_node = numa_node_of(nvml, device);
    gpu.cpu_affinity = cpu_list_of(nvml, device);
    return gpu;
}

}  // namespace peergate::nvml
