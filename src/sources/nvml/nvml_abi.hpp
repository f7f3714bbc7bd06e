// SPDX-License-Identifier: Apache-2.0
// The part of NVML's C ABI that peergate uses, declared here so that the build needs no
// nvml.h (docs/style.md 22). Only types, constants and layouts; no code.
//
// Provenance (checked with the search tools, Nov 2026):
// - nvmlReturn_t values: NVML API reference "Return values" (cuda.bindings.nvml.Return
//   mirrors nvmlReturn_t: SUCCESS 0 .. OPERATING_SYSTEM 17; UNKNOWN 999 per nvml.h).
// - nvmlPciInfo_t (v3 layout, NVML 9.0+): busIdLegacy[16], domain, bus, device, pciDeviceId,
//   pciSubSystemId, busId[32] (nvml.h; NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE 16,
//   NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE 32). Only the _v3 getter writes busId.
// - nvmlGpuP2PCapsIndex_t READ 0 WRITE 1 NVLINK 2 ATOMICS 3 PROP 4 (nvml.h enum
//   nvmlGpuP2PCapsIndex_enum; newer headers deprecate PROP for the alias PCI = 4).
// - nvmlGpuP2PStatus_t OK 0, CHIPSET_NOT_SUPPORED 1 (sic), GPU_NOT_SUPPORTED 2,
//   IOH_TOPOLOGY_NOT_SUPPORTED 3, DISABLED_BY_REGKEY 4, NOT_SUPPORTED 5, UNKNOWN 6
//   (NVML reference, cuda.bindings.nvml.GpuP2PStatus).
// - nvmlGpuTopologyLevel_t INTERNAL 0, SINGLE 10, MULTIPLE 20, HOSTBRIDGE 30, NODE 40,
//   SYSTEM 50 (nvml.h enum nvmlGpuLevel_enum; "spaced to allow for future relationships").
// - nvmlEnableState_t DISABLED 0, ENABLED 1; nvmlIntNvLinkDeviceType_t GPU 0, IBMNPU 1,
//   SWITCH 2, UNKNOWN 0xFF (nvml.h).
// - nvmlDeviceGetNvLinkErrorCounter(device, link, nvmlNvLinkErrorCounter_t, unsigned long
//   long*); counters DL_REPLAY 0, DL_RECOVERY 1, DL_CRC_FLIT 2, DL_CRC_DATA 3 (nvml.h;
//   cuda.bindings.nvml.NvLinkErrorCounter adds DL_ECC_DATA 4). Pascal and newer.
// - nvmlDeviceGetFieldValues(device, int valuesCount, nvmlFieldValue_t*); nvmlFieldValue_t
//   is fieldId, scopeId (unsigned int each; scopeId names the link for per-link NVLink
//   fields), timestamp, latencyUsec (long long each), valueType, nvmlReturn, value (a union
//   of 8 bytes): 40 bytes. nvmlValueType_t DOUBLE 0, UNSIGNED_INT 1, UNSIGNED_LONG 2,
//   UNSIGNED_LONG_LONG 3, SIGNED_LONG_LONG 4, SIGNED_INT 5, UNSIGNED_SHORT 6 (nvml.h).
//   NVLink5 counters NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS 215, _EFFECTIVE_ERRORS
//   219 (nvml.h; pynvml and nvml-wrapper-sys list the same ids; DCGM reads them per link
//   and sums them; open-gpu-kernel-modules' GB100 counter list has no DL replay/CRC ones).
// - NVLink throughput fields (nvml.h; pynvml lists the same ids): NVML_FI_DEV_NVLINK_THROUGHPUT_
//   DATA_TX 138, _DATA_RX 139 (payload), _RAW_TX 140, _RAW_RX 141 (payload and protocol), each
//   a KiB count since the driver loaded, unsigned long long. scopeId names the link; UINT_MAX
//   asks for the sum over every link. Some drivers answer the GPU's sum for every scopeId
//   (docs/driver-facts.md "Traffic counters"), which the reader must detect.
// - nvmlDeviceGetPcieThroughput(device, nvmlPcieUtilCounter_t, unsigned int* value): KB/s over
//   a 20 ms window the call itself waits for; NVML_PCIE_UTIL_TX_BYTES 0, RX_BYTES 1 (NVML
//   reference, cuda.bindings.nvml.PcieUtilCounter). Maxwell and newer, not in vGPU guests.
// - NVML_AFFINITY_SCOPE_NODE 0, SOCKET 1 (NVML reference, "CPU and Memory Affinity").
// - Buffer sizes: NVML_DEVICE_NAME_V2_BUFFER_SIZE 96, NVML_DEVICE_UUID_V2_BUFFER_SIZE 96
//   (NVML reference, "Constants").
// - nvmlDeviceGetGpuFabricInfo(device, nvmlGpuFabricInfo_t*) and nvmlDeviceGetGpuFabricInfoV
//   (device, nvmlGpuFabricInfoV_t*): clusterUuid[16], status (nvmlReturn_t), cliqueId, state
//   (unsigned char: NOT_SUPPORTED 0, NOT_STARTED 1, IN_PROGRESS 2, COMPLETED 3); the V
//   structure starts with `version` and ends with healthMask: v2 is 36 bytes, version word
//   nvmlGpuFabricInfo_v2 = NVML_STRUCT_VERSION(GpuFabricInfo, 2) = 0x02000024 (nvml.h; NVSHMEM
//   and NCCL declare the same layout). NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25 (nvml.h).
// - nvmlDeviceGetMigMode(device, unsigned int* currentMode, unsigned int* pendingMode):
//   NVML_DEVICE_MIG_DISABLE 0, NVML_DEVICE_MIG_ENABLE 1 (NVML reference; cuda.bindings.nvml
//   device_get_mig_mode).
// - Signatures below: NVML reference (Device Queries, NvLink, Affinity, Initialization).
#pragma once

#include <cstddef>

// NOLINTBEGIN(readability-identifier-naming): vendor names keep the vendor's spelling.
extern "C" {

// C enums are int-sized; a fixed underlying type lets a newer driver's value through
// unchanged, so that "any value we do not know" stays representable (and fails closed).
enum nvmlReturn_t : int {
    NVML_SUCCESS = 0,
    NVML_ERROR_UNINITIALIZED = 1,
    NVML_ERROR_INVALID_ARGUMENT = 2,
    NVML_ERROR_NOT_SUPPORTED = 3,
    NVML_ERROR_NO_PERMISSION = 4,
    NVML_ERROR_ALREADY_INITIALIZED = 5,
    NVML_ERROR_NOT_FOUND = 6,
    NVML_ERROR_INSUFFICIENT_SIZE = 7,
    NVML_ERROR_DRIVER_NOT_LOADED = 9,
    NVML_ERROR_TIMEOUT = 10,
    NVML_ERROR_LIBRARY_NOT_FOUND = 12,
    NVML_ERROR_FUNCTION_NOT_FOUND = 13,
    NVML_ERROR_GPU_IS_LOST = 15,
    NVML_ERROR_LIB_RM_VERSION_MISMATCH = 18,    // the driver library and kernel module differ
    NVML_ERROR_ARGUMENT_VERSION_MISMATCH = 25,  // a versioned structure the library does not know
    NVML_ERROR_UNKNOWN = 999,
};

struct nvmlDevice_st;
using nvmlDevice_t = nvmlDevice_st*;

constexpr std::size_t NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE = 16;
constexpr std::size_t NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE = 32;
constexpr unsigned NVML_DEVICE_NAME_V2_BUFFER_SIZE = 96;
constexpr unsigned NVML_DEVICE_UUID_V2_BUFFER_SIZE = 96;

// nvmlPciInfo_t as written by nvmlDeviceGetPciInfo_v3 and nvmlDeviceGetNvLinkRemotePciInfo_v2.
struct nvmlPciInfo_t {
    char busIdLegacy[NVML_DEVICE_PCI_BUS_ID_BUFFER_V2_SIZE];  // "0000:1B:00.0", deprecated
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;  // (device id << 16) | vendor id
    unsigned int pciSubSystemId;
    char busId[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];  // "00000000:1B:00.0"
};

static_assert(sizeof(nvmlPciInfo_t) == 68, "nvmlPciInfo_t v3 is 16 + 5*4 + 32 bytes");
static_assert(offsetof(nvmlPciInfo_t, busId) == 36, "busId follows the five unsigned ints");

enum nvmlEnableState_t : int { NVML_FEATURE_DISABLED = 0, NVML_FEATURE_ENABLED = 1 };

enum nvmlGpuP2PCapsIndex_t : int {
    NVML_P2P_CAPS_INDEX_READ = 0,
    NVML_P2P_CAPS_INDEX_WRITE = 1,
    NVML_P2P_CAPS_INDEX_NVLINK = 2,
    NVML_P2P_CAPS_INDEX_ATOMICS = 3,
    NVML_P2P_CAPS_INDEX_PROP = 4,
};

enum nvmlGpuP2PStatus_t : int {
    NVML_P2P_STATUS_OK = 0,
    NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED = 1,  // NVML's spelling
    NVML_P2P_STATUS_GPU_NOT_SUPPORTED = 2,
    NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED = 3,
    NVML_P2P_STATUS_DISABLED_BY_REGKEY = 4,
    NVML_P2P_STATUS_NOT_SUPPORTED = 5,
    NVML_P2P_STATUS_UNKNOWN = 6,
};

enum nvmlGpuTopologyLevel_t : int {
    NVML_TOPOLOGY_INTERNAL = 0,
    NVML_TOPOLOGY_SINGLE = 10,
    NVML_TOPOLOGY_MULTIPLE = 20,
    NVML_TOPOLOGY_HOSTBRIDGE = 30,
    NVML_TOPOLOGY_NODE = 40,
    NVML_TOPOLOGY_SYSTEM = 50,
};

enum nvmlIntNvLinkDeviceType_t : int {
    NVML_NVLINK_DEVICE_TYPE_GPU = 0x00,
    NVML_NVLINK_DEVICE_TYPE_IBMNPU = 0x01,
    NVML_NVLINK_DEVICE_TYPE_SWITCH = 0x02,
    NVML_NVLINK_DEVICE_TYPE_UNKNOWN = 0xFF,
};

// nvmlNvLinkErrorCounter_t (nvml.h enum nvmlNvLinkErrorCounter_enum); ECC_DATA 4 came later.
enum nvmlNvLinkErrorCounter_t : int {
    NVML_NVLINK_ERROR_DL_REPLAY = 0,
    NVML_NVLINK_ERROR_DL_RECOVERY = 1,
    NVML_NVLINK_ERROR_DL_CRC_FLIT = 2,
    NVML_NVLINK_ERROR_DL_CRC_DATA = 3,
};

enum nvmlValueType_t : int {
    NVML_VALUE_TYPE_DOUBLE = 0,
    NVML_VALUE_TYPE_UNSIGNED_INT = 1,
    NVML_VALUE_TYPE_UNSIGNED_LONG = 2,
    NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
    NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4,
    NVML_VALUE_TYPE_SIGNED_INT = 5,
    NVML_VALUE_TYPE_UNSIGNED_SHORT = 6,
};

// NOLINTBEGIN(google-runtime-int): the ABI's types
union nvmlValue_t {
    double dVal;
    int siVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    long long sllVal;
    unsigned short usVal;
};

struct nvmlFieldValue_t {
    unsigned int fieldId;
    unsigned int scopeId;
    long long timestamp;
    long long latencyUsec;
    nvmlValueType_t valueType;
    nvmlReturn_t nvmlReturn;
    nvmlValue_t value;
};

// NOLINTEND(google-runtime-int)

static_assert(sizeof(nvmlFieldValue_t) == 40, "nvmlFieldValue_t is 40 bytes in nvml.h");

constexpr unsigned NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX = 138;
constexpr unsigned NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX = 139;
constexpr unsigned NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_TX = 140;
constexpr unsigned NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX = 141;
// The scopeId that asks a per-link field for its sum over every link (UINT_MAX in nvml.h's
// comment; nvml.h gives it no name).
constexpr unsigned PEERGATE_NVML_SCOPE_ALL_LINKS = 0xFFFFFFFFU;
constexpr unsigned NVML_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_EVENTS = 215;
constexpr unsigned NVML_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS = 219;

constexpr std::size_t NVML_GPU_FABRIC_UUID_LEN = 16;
using nvmlGpuFabricState_t = unsigned char;

struct nvmlGpuFabricInfo_t {
    unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];  // NOLINT(*-avoid-c-arrays): the ABI
    nvmlReturn_t status;
    unsigned int cliqueId;
    nvmlGpuFabricState_t state;
};

struct nvmlGpuFabricInfo_v2_t {
    unsigned int version;
    unsigned char clusterUuid[NVML_GPU_FABRIC_UUID_LEN];  // NOLINT(*-avoid-c-arrays): the ABI
    nvmlReturn_t status;
    unsigned int cliqueId;
    nvmlGpuFabricState_t state;
    unsigned int healthMask;
};

static_assert(sizeof(nvmlGpuFabricInfo_t) == 28, "nvmlGpuFabricInfo_t is 28 bytes in nvml.h");
static_assert(sizeof(nvmlGpuFabricInfo_v2_t) == 36, "nvmlGpuFabricInfo_v2_t is 36 bytes");
constexpr unsigned NVML_GPU_FABRIC_INFO_V2 = (2U << 24U) | sizeof(nvmlGpuFabricInfo_v2_t);

constexpr unsigned NVML_DEVICE_MIG_DISABLE = 0;
constexpr unsigned NVML_DEVICE_MIG_ENABLE = 1;

enum nvmlPcieUtilCounter_t : int { NVML_PCIE_UTIL_TX_BYTES = 0, NVML_PCIE_UTIL_RX_BYTES = 1 };

using nvmlAffinityScope_t = unsigned int;
constexpr nvmlAffinityScope_t NVML_AFFINITY_SCOPE_NODE = 0;
constexpr nvmlAffinityScope_t NVML_AFFINITY_SCOPE_SOCKET = 1;

// Entry point types, named after the exported symbols they are bound to.
using nvmlInit_v2_fn = nvmlReturn_t();
using nvmlShutdown_fn = nvmlReturn_t();
using nvmlErrorString_fn = const char*(nvmlReturn_t result);
using nvmlDeviceGetCount_v2_fn = nvmlReturn_t(unsigned int* deviceCount);
using nvmlDeviceGetHandleByIndex_v2_fn = nvmlReturn_t(unsigned int index, nvmlDevice_t* device);
using nvmlDeviceGetPciInfo_v3_fn = nvmlReturn_t(nvmlDevice_t device, nvmlPciInfo_t* pci);
using nvmlDeviceGetName_fn = nvmlReturn_t(nvmlDevice_t device, char* name, unsigned int length);
using nvmlDeviceGetUUID_fn = nvmlReturn_t(nvmlDevice_t device, char* uuid, unsigned int length);
using nvmlDeviceGetNvLinkState_fn = nvmlReturn_t(nvmlDevice_t device,
                                                 unsigned int link,
                                                 nvmlEnableState_t* isActive);
using nvmlDeviceGetNvLinkRemotePciInfo_v2_fn = nvmlReturn_t(nvmlDevice_t device,
                                                            unsigned int link,
                                                            nvmlPciInfo_t* pci);
using nvmlDeviceGetNvLinkRemoteDeviceType_fn = nvmlReturn_t(
    nvmlDevice_t device, unsigned int link, nvmlIntNvLinkDeviceType_t* pNvLinkDeviceType);
using nvmlDeviceGetNvLinkErrorCounter_fn =
    nvmlReturn_t(nvmlDevice_t device,
                 unsigned int link,
                 nvmlNvLinkErrorCounter_t counter,
                 unsigned long long* counterValue);  // NOLINT(google-runtime-int)
using nvmlDeviceGetFieldValues_fn = nvmlReturn_t(nvmlDevice_t device,
                                                 int valuesCount,
                                                 nvmlFieldValue_t* values);
using nvmlDeviceGetP2PStatus_fn = nvmlReturn_t(nvmlDevice_t device1,
                                               nvmlDevice_t device2,
                                               nvmlGpuP2PCapsIndex_t p2pIndex,
                                               nvmlGpuP2PStatus_t* p2pStatus);
using nvmlDeviceGetTopologyCommonAncestor_fn = nvmlReturn_t(nvmlDevice_t device1,
                                                            nvmlDevice_t device2,
                                                            nvmlGpuTopologyLevel_t* pathInfo);
using nvmlDeviceGetMemoryAffinity_fn =
    nvmlReturn_t(nvmlDevice_t device,
                 unsigned int nodeSetSize,
                 unsigned long* nodeSet,  // NOLINT(google-runtime-int)
                 nvmlAffinityScope_t scope);
using nvmlDeviceGetCpuAffinity_fn =
    nvmlReturn_t(nvmlDevice_t device,
                 unsigned int cpuSetSize,
                 unsigned long* cpuSet);  // NOLINT(google-runtime-int)

using nvmlDeviceGetGpuFabricInfo_fn = nvmlReturn_t(nvmlDevice_t device,
                                                   nvmlGpuFabricInfo_t* gpuFabricInfo);
using nvmlDeviceGetGpuFabricInfoV_fn = nvmlReturn_t(nvmlDevice_t device,
                                                    nvmlGpuFabricInfo_v2_t* gpuFabricInfo);

using nvmlDeviceGetPcieThroughput_fn = nvmlReturn_t(nvmlDevice_t device,
                                                    nvmlPcieUtilCounter_t counter,
                                                    unsigned int* value);

using nvmlDeviceGetMigMode_fn = nvmlReturn_t(nvmlDevice_t device,
                                             unsigned int* currentMode,
                                             unsigned int* pendingMode);

}  // extern "C"
// NOLINTEND(readability-identifier-naming)
