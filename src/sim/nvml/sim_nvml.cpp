// SPDX-License-Identifier: Apache-2.0
// The simulated libnvidia-ml: the NVML entry points peergate binds, answering from a
// machine file (docs/style.md 26). Built twice: the current ABI, and with
// PEERGATE_SIM_NVML_LEGACY an "older library" that exports only the unversioned names.
#include "sim/nvml/sim_nvml_state.hpp"
#include "sim/nvml/sim_nvml_traffic.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <string>

// NOLINTBEGIN(readability-identifier-naming): exported names are NVML's.
#define PEERGATE_SIM_EXPORT extern "C" __attribute__((visibility("default")))

namespace peergate::sim::nvml {
namespace {

// Runs the fault layer and resolves the handle; the position or a negative error.
struct Entry {
    nvmlReturn_t rc = NVML_SUCCESS;
    std::size_t position = 0;
    FaultAnswer answer;
};

Entry on_device(const char* name, nvmlDevice_t device) {
    Entry entry;
    entry.answer = enter(name);
    if (entry.answer.fail) {
        entry.rc = entry.answer.code;
        return entry;
    }
    const int p = position_of(device);
    if (p < 0) {
        entry.rc = NVML_ERROR_INVALID_ARGUMENT;
        return entry;
    }
    entry.position = static_cast<std::size_t>(p);
    return entry;
}

nvmlReturn_t copy_text(const std::string& text, char* out, unsigned length) {
    if (out == nullptr || text.size() + 1 > length) {
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    std::memcpy(out, text.c_str(), text.size() + 1);
    return NVML_SUCCESS;
}

void fill_pci(const model::PciAddress& pci, nvmlPciInfo_t* out) {
    *out = nvmlPciInfo_t{};
    const std::string legacy = pci.to_sysfs();  // the 16-byte legacy field: 0000:1b:00.0
    const std::string full = pci.to_nvml();
    std::memcpy(
        out->busIdLegacy, legacy.c_str(), std::min(legacy.size(), sizeof out->busIdLegacy - 1));
    std::memcpy(out->busId, full.c_str(), std::min(full.size(), sizeof out->busId - 1));
    out->domain = pci.domain;
    out->bus = pci.bus;
    out->device = pci.device;
    out->pciDeviceId = 0x233010DEU;  // a plausible (device << 16) | NVIDIA's vendor id
}

nvmlReturn_t link_of(const char* name, nvmlDevice_t device, unsigned link, const SimLink** out) {
    const Entry entry = on_device(name, device);
    if (entry.rc != NVML_SUCCESS) {
        return entry.rc;
    }
    const auto& links = machine().gpus[entry.position].links;
    if (links.empty()) {
        return NVML_ERROR_NOT_SUPPORTED;  // a GPU without NVLink
    }
    if (link >= links.size()) {
        return NVML_ERROR_INVALID_ARGUMENT;  // past the GPU's own link count
    }
    *out = &links[link];
    return NVML_SUCCESS;
}

const char* error_text(nvmlReturn_t result) {
    switch (result) {
        case NVML_SUCCESS:
            return "Success";
        case NVML_ERROR_UNINITIALIZED:
            return "Uninitialized";
        case NVML_ERROR_INVALID_ARGUMENT:
            return "Invalid Argument";
        case NVML_ERROR_NOT_SUPPORTED:
            return "Not Supported";
        case NVML_ERROR_INSUFFICIENT_SIZE:
            return "Insufficient Size";
        case NVML_ERROR_DRIVER_NOT_LOADED:
            return "Driver Not Loaded";
        case NVML_ERROR_GPU_IS_LOST:
            return "GPU is lost";
        case NVML_ERROR_LIB_RM_VERSION_MISMATCH:
            return "RM has detected an NVML/RM version mismatch";
        default:
            return "Unknown Error";
    }
}

nvmlReturn_t get_count(const char* name, unsigned* count) {
    if (const auto answer = enter(name); answer.fail) {
        return answer.code;
    }
    *count = static_cast<unsigned>(machine().gpus.size());
    return NVML_SUCCESS;
}

nvmlReturn_t get_handle(const char* name, unsigned index, nvmlDevice_t* device) {
    if (const auto answer = enter(name); answer.fail) {
        return answer.code;
    }
    if (index >= machine().gpus.size() || device == nullptr) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *device = handle_of(index);
    return NVML_SUCCESS;
}

nvmlReturn_t get_pci(const char* name, nvmlDevice_t device, nvmlPciInfo_t* pci) {
    const Entry entry = on_device(name, device);
    if (entry.rc == NVML_SUCCESS) {
        fill_pci(machine().gpus[entry.position].gpu.pci, pci);
    }
    return entry.rc;
}

nvmlReturn_t get_remote_pci(const char* name,
                            nvmlDevice_t device,
                            unsigned link,
                            nvmlPciInfo_t* pci) {
    const SimLink* found = nullptr;
    const nvmlReturn_t rc = link_of(name, device, link, &found);
    if (rc == NVML_SUCCESS) {
        fill_pci(found->remote, pci);
    }
    return rc;
}

}  // namespace
}  // namespace peergate::sim::nvml

namespace sim = peergate::sim::nvml;

PEERGATE_SIM_EXPORT const char* nvmlErrorString(nvmlReturn_t result) {
    return sim::error_text(result);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlShutdown() {
    return sim::sim_shutdown();
}

// Not an NVML entry point: peergate looks it up only in a library it loaded to simulate.
PEERGATE_SIM_EXPORT void peergate_sim_nvml_use_machine(const char* path) {
    sim::sim_use_machine(path);
}

#ifndef PEERGATE_SIM_NVML_LEGACY
PEERGATE_SIM_EXPORT nvmlReturn_t nvmlInit_v2() {
    return sim::sim_init("nvmlInit_v2");
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned* count) {
    return sim::get_count("nvmlDeviceGetCount_v2", count);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index,
                                                               nvmlDevice_t* device) {
    return sim::get_handle("nvmlDeviceGetHandleByIndex_v2", index, device);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
    return sim::get_pci("nvmlDeviceGetPciInfo_v3", device, pci);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device,
                                                                     unsigned link,
                                                                     nvmlPciInfo_t* pci) {
    return sim::get_remote_pci("nvmlDeviceGetNvLinkRemotePciInfo_v2", device, link, pci);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device,
                                                             nvmlGpuFabricInfo_v2_t* info) {
    const auto entry = sim::on_device("nvmlDeviceGetGpuFabricInfoV", device);
    return entry.rc != NVML_SUCCESS
               ? entry.rc
               : sim::fabric_info(sim::machine().gpus[entry.position].gpu, info);
}
#else
// An older library: the same answers under the unversioned names only.
PEERGATE_SIM_EXPORT nvmlReturn_t nvmlInit() {
    return sim::sim_init("nvmlInit");
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned* count) {
    return sim::get_count("nvmlDeviceGetCount", count);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned index, nvmlDevice_t* device) {
    return sim::get_handle("nvmlDeviceGetHandleByIndex", index, device);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t* pci) {
    return sim::get_pci("nvmlDeviceGetPciInfo", device, pci);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device,
                                                                  unsigned link,
                                                                  nvmlPciInfo_t* pci) {
    return sim::get_remote_pci("nvmlDeviceGetNvLinkRemotePciInfo", device, link, pci);
}
#endif

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device,
                                                            nvmlGpuFabricInfo_t* info) {
    const auto entry = sim::on_device("nvmlDeviceGetGpuFabricInfo", device);
    return entry.rc != NVML_SUCCESS
               ? entry.rc
               : sim::fabric_info(sim::machine().gpus[entry.position].gpu, info);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device,
                                                      unsigned* current,
                                                      unsigned* pending) {
    const auto entry = sim::on_device("nvmlDeviceGetMigMode", device);
    return entry.rc != NVML_SUCCESS
               ? entry.rc
               : sim::mig_mode(sim::machine().gpus[entry.position].gpu, current, pending);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device,
                                                   char* name,
                                                   unsigned length) {
    const auto entry = sim::on_device("nvmlDeviceGetName", device);
    return entry.rc != NVML_SUCCESS
               ? entry.rc
               : sim::copy_text(sim::machine().gpus[entry.position].gpu.name, name, length);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device,
                                                   char* uuid,
                                                   unsigned length) {
    const auto entry = sim::on_device("nvmlDeviceGetUUID", device);
    return entry.rc != NVML_SUCCESS
               ? entry.rc
               : sim::copy_text(sim::machine().gpus[entry.position].gpu.uuid, uuid, length);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device,
                                                          unsigned link,
                                                          nvmlEnableState_t* active) {
    const sim::SimLink* found = nullptr;
    const nvmlReturn_t rc = sim::link_of("nvmlDeviceGetNvLinkState", device, link, &found);
    if (rc == NVML_SUCCESS) {
        *active = found->active ? NVML_FEATURE_ENABLED : NVML_FEATURE_DISABLED;
    }
    return rc;
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(
    nvmlDevice_t device, unsigned link, nvmlIntNvLinkDeviceType_t* type) {
    const sim::SimLink* found = nullptr;
    const nvmlReturn_t rc =
        sim::link_of("nvmlDeviceGetNvLinkRemoteDeviceType", device, link, &found);
    if (rc == NVML_SUCCESS) {
        *type = found->to_switch ? NVML_NVLINK_DEVICE_TYPE_SWITCH : NVML_NVLINK_DEVICE_TYPE_GPU;
    }
    return rc;
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(
    nvmlDevice_t device,
    unsigned link,
    nvmlNvLinkErrorCounter_t counter,
    unsigned long long* value) {  // NOLINT(google-runtime-int): the ABI's type
    const sim::SimLink* found = nullptr;
    const nvmlReturn_t rc = sim::link_of("nvmlDeviceGetNvLinkErrorCounter", device, link, &found);
    if (rc != NVML_SUCCESS) {
        return rc;
    }
    const auto& gpu = sim::machine().gpus[static_cast<std::size_t>(sim::position_of(device))];
    // DL_ECC_DATA (4) and later counters are not simulated.
    const auto count =
        counter >= NVML_NVLINK_ERROR_DL_REPLAY && counter <= NVML_NVLINK_ERROR_DL_CRC_DATA
            ? sim::nvlink_error_count(gpu,
                                      link,
                                      static_cast<peergate::model::NvlinkCounter>(counter),
                                      sim::sessions_opened())
            : std::nullopt;
    if (!count) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    *value = *count;
    return NVML_SUCCESS;
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device,
                                                          int count,
                                                          nvmlFieldValue_t* values) {
    const sim::Entry entry = sim::on_device("nvmlDeviceGetFieldValues", device);
    if (entry.rc != NVML_SUCCESS) {
        return entry.rc;
    }
    if (count < 0 || (count > 0 && values == nullptr)) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    const auto& gpu = sim::machine().gpus[entry.position];
    const double elapsed = sim::seconds_running();
    const auto now_us = std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    for (int i = 0; i < count; ++i) {
        if (sim::is_traffic_field(values[i].fieldId)) {
            sim::fill_traffic_field(sim::machine(), entry.position, elapsed, &values[i]);
        } else {
            sim::fill_field_value(gpu, sim::sessions_opened(), &values[i]);
        }
        values[i].timestamp = now_us;
    }
    return NVML_SUCCESS;
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device,
                                                             nvmlPcieUtilCounter_t counter,
                                                             unsigned* value) {
    const sim::Entry entry = sim::on_device("nvmlDeviceGetPcieThroughput", device);
    return entry.rc != NVML_SUCCESS
               ? entry.rc
               : sim::pcie_throughput(
                     sim::machine(), entry.position, counter, sim::seconds_running(), value);
}

PEERGATE_SIM_EXPORT nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a,
                                                        nvmlDevice_t b,
                                                        nvmlGpuP2PCapsIndex_t caps,
                                                        nvmlGpuP2PStatus_t* status) {
    const auto first = sim::on_device("nvmlDeviceGetP2PStatus", a);
    if (first.rc != NVML_SUCCESS) {
        return first.rc;
    }
    const int q = sim::position_of(b);
    if (q < 0 || status == nullptr) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *status = first.answer.unknown
                  ? NVML_P2P_STATUS_UNKNOWN
                  : static_cast<nvmlGpuP2PStatus_t>(sim::p2p_status(
                        sim::machine(), caps, first.position, static_cast<std::size_t>(q)));
    return NVML_SUCCESS;
}

PEERGATE_SIM_EXPORT nvmlReturn_t
nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t a, nvmlDevice_t b, nvmlGpuTopologyLevel_t* level) {
    const auto first = sim::on_device("nvmlDeviceGetTopologyCommonAncestor", a);
    if (first.rc != NVML_SUCCESS) {
        return first.rc;
    }
    const int q = sim::position_of(b);
    if (q < 0 || level == nullptr) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *level = static_cast<nvmlGpuTopologyLevel_t>(
        sim::ancestor_level(sim::machine(), first.position, static_cast<std::size_t>(q)));
    return NVML_SUCCESS;
}

PEERGATE_SIM_EXPORT nvmlReturn_t
nvmlDeviceGetMemoryAffinity(nvmlDevice_t device,
                            unsigned size,
                            unsigned long* nodes,  // NOLINT(google-runtime-int)
                            nvmlAffinityScope_t /*scope*/) {
    const auto entry = sim::on_device("nvmlDeviceGetMemoryAffinity", device);
    if (entry.rc != NVML_SUCCESS) {
        return entry.rc;
    }
    const auto& node = sim::machine().gpus[entry.position].gpu.numa_node;
    if (!node) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    std::fill(nodes, nodes + size, 0UL);
    if (static_cast<unsigned>(*node) / 64 < size) {
        nodes[*node / 64] |= 1UL << (*node % 64);
    }
    return NVML_SUCCESS;
}

PEERGATE_SIM_EXPORT nvmlReturn_t
nvmlDeviceGetCpuAffinity(nvmlDevice_t device,
                         unsigned size,
                         unsigned long* cpus) {  // NOLINT(google-runtime-int)
    const auto entry = sim::on_device("nvmlDeviceGetCpuAffinity", device);
    if (entry.rc != NVML_SUCCESS) {
        return entry.rc;
    }
    const auto& list = sim::machine().gpus[entry.position].gpu.cpu_affinity;
    if (list.empty()) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    const auto words = sim::cpu_words(list, size);
    std::copy(words.begin(), words.end(), cpus);
    return NVML_SUCCESS;
}

// NOLINTEND(readability-identifier-naming)
