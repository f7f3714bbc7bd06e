// SPDX-License-Identifier: Apache-2.0
// peergate.machine/v1: one machine described as data. It drives the simulated NVML, CUDA
// driver and nvidia-smi and the materialised host root, and `peergate gather` writes one
// from a real host, so every field report becomes a fixture. See docs/machine-file.md.
#pragma once

#include "model/gpu_fabric.hpp"
#include "model/link_label.hpp"
#include "model/mig_mode.hpp"
#include "model/nvlink_errors.hpp"
#include "model/pci_address.hpp"
#include "model/pci_aer.hpp"
#include "util/expected.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace peergate::snapshot {

// The schema a machine file names first; the reader refuses any other.
inline constexpr const char* kMachineSchema = "peergate.machine/v1";

// One NVLink of a GPU; when a GPU lists none, links are derived from the matrix.
struct MachineNvlink {
    int link = 0;
    bool active = true;
    std::string remote_type = "gpu";  // "gpu" or "switch" (NVSwitch, PCI class 0x0680)
    std::optional<model::PciAddress> remote_pci;

    friend bool operator==(const MachineNvlink&, const MachineNvlink&) = default;
};

// The error counters of one NVLink (nvmlDeviceGetNvLinkErrorCounter; NVLink5's as field
// values). An absent count is one NVML does not answer (NOT_SUPPORTED); a link not listed
// answers 0 on the GPU's `nvlink_counters` and nothing on the others. `growth`
// is added at each NVML session after the first: the errors a load between two reads (the
// doctor's, before and after --probe) leaves on a marginal link.
struct MachineNvlinkErrors {
    int link = 0;
    model::NvlinkErrorCounts counts;
    std::array<std::uint64_t, model::kNvlinkCounters> growth{};

    friend bool operator==(const MachineNvlinkErrors&, const MachineNvlinkErrors&) = default;
};

// A PCIe function's link as sysfs shows it (max_link_speed, max_link_width,
// current_link_speed, current_link_width); an empty speed or absent width is not written.
struct MachinePcieLink {
    std::string max_speed;  // "16.0 GT/s PCIe"
    std::optional<int> max_width;
    std::string current_speed;
    std::optional<int> current_width;

    friend bool operator==(const MachinePcieLink&, const MachinePcieLink&) = default;
};

// A PCIe port above a GPU (root port or switch port) and its ACS control word, as sysfs
// `config` would show it; nullopt: the port has no ACS capability (or, acs_unread, nobody
// could read it).
struct MachinePort {
    model::PciAddress pci;
    std::optional<std::uint16_t> acs_control;
    bool acs_unread = false;                   // "unknown": gather could not read it (no root)
    std::optional<MachinePcieLink> pcie_link;  // absent: sysfs shows no link attributes
    std::optional<model::PciAer> aer;          // absent: AER off or not recorded
    // sysfs's vendor, device, subsystem_vendor, subsystem_device ("0x1000"); "": not recorded,
    // and the simulated sysfs has no such file. NCCL recognises a switch by them.
    std::string vendor;
    std::string device;
    std::string subsystem_vendor;
    std::string subsystem_device;

    friend bool operator==(const MachinePort&, const MachinePort&) = default;
};

struct MachineGpu {
    int index = 0;
    std::string name;
    model::PciAddress pci;
    std::string uuid;
    std::optional<int> numa_node;
    std::string cpu_affinity;  // "0-47,96-143"
    int nvlink_slots = 0;      // the GPU's own link count (18 on H100, 12 on A100, 0 none)
    std::uint64_t memory_bytes = 0;
    std::uint16_t pci_device_id = 0;  // PCI device id (0x2901 for B200); 0 = unknown
    int cc_major = 0;
    int cc_minor = 0;
    std::vector<MachineNvlink> nvlinks;              // explicit links (gather); empty = derive
    std::vector<MachinePort> upstream_ports;         // nearest first; empty: on a root bus
    std::vector<MachineNvlinkErrors> nvlink_errors;  // links not listed count no errors
    model::NvlinkCounterSet nvlink_counters = model::NvlinkCounterSet::dl;  // those it keeps
    std::optional<MachinePcieLink> pcie_link;  // absent: sysfs shows no link attributes
    std::optional<model::PciAer> aer;          // absent: AER off or not recorded
    // CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED as the driver answered it; absent: the simulated
    // driver answers from host.kernel_module (open 1, proprietary 0, unrecorded: no answer).
    std::optional<bool> cuda_dma_buf;
    // The NVSwitch fabric registration NVML reports (nvmlDeviceGetGpuFabricInfoV); absent:
    // NOT_SUPPORTED, as on PCIe cards and GPUs before Hopper.
    std::optional<model::GpuFabric> fabric;
    // MIG mode as nvmlDeviceGetMigMode answers it; absent: NOT_SUPPORTED (no MIG on the GPU).
    std::optional<model::MigMode> mig;

    friend bool operator==(const MachineGpu&, const MachineGpu&) = default;
};

// A network function (PCI class 0x02: Ethernet 0x0200, InfiniBand 0x0207) and the ports
// above it, as sysfs shows them: NCCL places NICs in its topology beside the GPUs.
struct MachineNic {
    model::PciAddress pci;  // one network function; a card's functions are merged when read
    std::string pci_class = "0x020000";
    std::string vendor = "0x15b3";  // Mellanox / NVIDIA networking
    std::string device = "0x0000";
    std::optional<int> numa_node;
    std::vector<MachinePort> upstream_ports;  // nearest first, as for a GPU
    std::optional<MachinePcieLink> pcie_link;
    std::optional<model::PciAer> aer;         // absent: AER off or not recorded
    std::vector<std::string> rdma_devices;    // sysfs infiniband/: "mlx5_0"
    std::vector<std::string> interfaces;      // sysfs net/: "ibp24s0"
    std::optional<model::PciAddress> physfn;  // an SR-IOV virtual function's physical function

    friend bool operator==(const MachineNic&, const MachineNic&) = default;
};

// A fault to inject. `layer` says which simulated part honours it.
struct MachineFault {
    std::string layer;            // "nvml", "smi", "cuda", "copy", "sm", "flag"
    std::string call;             // nvml/cuda: the entry point ("nvmlDeviceGetP2PStatus"); "" = any
    std::string effect;           // nvml: fail|unknown|hang; smi: missing|hang|exit|truncated;
                                  // cuda: fail|hang; copy: drop|corrupt; sm (kernels storing
                                  // or loading through a peer mapping): drop|corrupt (stores),
                                  // mirror (loads answer the local value); flag (the
                                  // handshake's flag store): lost|early (before the payload)
    int code = 0;                 // the error code a failing call returns, the exit status for smi
    int src = -1;                 // copy/sm/flag: source GPU index, -1 any
    int dst = -1;                 // copy/sm/flag: destination GPU index, -1 any
    std::uint64_t min_bytes = 0;  // copy/sm/flag: only transfers of at least this size
    int min_inflight = 0;         // copy: only while at least this many copies are in flight
    std::int64_t after_copies = 0;  // copy: only once this many direct peer copies have run
    double fraction = 1.0;          // copy, sm drop|corrupt: share of elements affected

    friend bool operator==(const MachineFault&, const MachineFault&) = default;
};

struct MachineHost {
    std::string iommu = "off";     // off | identity | translating: how groups are materialised
    std::string iommu_group_type;  // for translating: "DMA-FQ", "DMA", ...
    bool hypervisor = false;
    std::string kernel_cmdline;
    std::string boot_id;
    std::string kernel_log;  // dmesg text
    // The GPUDirect RDMA peer-memory module loaded: "", "nvidia_peermem" or "nv_peer_mem".
    std::string peer_memory_module;
    // The running NVIDIA kernel module's flavour: "open", "proprietary", or "" unrecorded (then
    // the simulated /proc/driver/nvidia/version is absent). Its version is driver_version.
    std::string kernel_module;
    std::string kernel_release;  // /proc/sys/kernel/osrelease; "": unrecorded, absent
    // The running module's version where it is not driver_version: the driver was upgraded
    // and the host not rebooted. Then NVML, nvidia-smi and CUDA refuse to start, as they do.
    std::string kernel_module_version;
    // The CPUs' topology as sysfs gives it, each {cpu, physical_package_id, core_id}: gres.conf's
    // Cores= needs it. Empty: not recorded (then the simulated sysfs has none).
    std::vector<std::vector<int>> cpus;
    // The CPUs' kind, for export nccl-topo's <cpu> (docs/machine-file.md): the kernel's arch
    // ("x86_64", "aarch64"), /proc/cpuinfo's vendor_id, "cpu family" and "model". Empty: not
    // recorded, and the simulated host shows none of it.
    std::string cpu_arch;
    std::string cpu_vendor;
    std::optional<int> cpu_family;
    std::optional<int> cpu_model;

    friend bool operator==(const MachineHost&, const MachineHost&) = default;
};

struct MachineBandwidth {
    double nvlink_gbps_per_link = 25.0;         // one direction, per link
    double pcie_gbps = 24.0;                    // PCIe P2P, one direction
    double host_gbps = 24.0;                    // device <-> pinned host
    double device_gbps = 2000.0;                // device-local copy
    std::vector<std::vector<double>> p2p_gbps;  // optional per-pair override [src][dst]

    friend bool operator==(const MachineBandwidth&, const MachineBandwidth&) = default;
};

// Data the simulated counters count as moving while the machine runs (docs/machine-file.md
// "traffic"): `from` sends to `to` at `gbps` (10^9 bytes/s) over NVLink or PCIe, between
// `start_s` and `stop_s` seconds after the simulated NVML's first nvmlInit. A GPU index of -1
// is the host (PCIe only): from -1 is host to device, to -1 device to host.
struct MachineTrafficFlow {
    int from = -1;
    int to = -1;
    std::string over = "nvlink";  // "nvlink" or "pcie"
    double gbps = 0.0;
    double start_s = 0.0;
    std::optional<double> stop_s;  // absent: for as long as the machine runs

    friend bool operator==(const MachineTrafficFlow&, const MachineTrafficFlow&) = default;
};

// How the simulated NVML answers the traffic counters (watch) and what moves.
struct MachineTraffic {
    // "per_link": each link's own count; "aggregate": every scopeId answers the GPU's sum, as
    // some drivers do; "absent": the fields answer NOT_SUPPORTED (an older driver).
    std::string nvlink_counters = "per_link";
    bool pcie_counters = true;    // false: nvmlDeviceGetPcieThroughput answers NOT_SUPPORTED
    std::uint64_t start_kib = 0;  // every NVLink data counter's value at the first nvmlInit
    std::vector<MachineTrafficFlow> flows;

    friend bool operator==(const MachineTraffic&, const MachineTraffic&) = default;
};

struct MachineFile {
    std::string name;
    std::string description;
    std::string driver_version = "570.86.15";
    int cuda_driver_version = 12080;  // cuDriverGetVersion
    std::vector<MachineGpu> gpus;
    std::vector<std::vector<model::LinkLabel>> matrix;  // same tokens as topo -m
    bool nvswitch = false;                              // NV# links go through NVSwitches
    std::vector<model::PciAddress> nvswitch_pci;  // the NVSwitches' PCI addresses; empty = derived
    // NVML P2P status per caps index, tokens OK/CNS/GNS/TNS/DR/NS/U; empty = derived
    // (NVLINK: OK iff NV#, NS otherwise; READ/WRITE: OK everywhere, the capability claim).
    std::vector<std::vector<std::string>> nvml_p2p_nvlink;
    std::vector<std::vector<std::string>> nvml_p2p_read;
    std::vector<std::vector<std::string>> nvml_p2p_write;
    std::vector<std::vector<std::string>> nvml_p2p_atomics;  // empty = derived like nvlink
    std::vector<std::vector<std::string>> nvml_p2p_prop;     // empty = derived like read
    std::vector<std::vector<int>> cuda_can_access_peer;      // empty = 1 everywhere off-diagonal
    MachineHost host;
    MachineBandwidth bandwidth;
    std::vector<MachineFault> faults;
    std::vector<MachineNic> nics;  // the host's network functions; empty: none in sysfs
    // absent: the counters answer and count nothing moving (an idle machine)
    std::optional<MachineTraffic> traffic;
    std::string recorded_topo_m;  // gather: the real text, printed verbatim
    std::string recorded_query_gpu;

    friend bool operator==(const MachineFile&, const MachineFile&) = default;
};

// Parses and validates a machine file; the error names the field and what is wrong.
// Whether the machine's user-space driver and running kernel module differ (host.
// kernel_module_version set to another version than driver_version).
bool driver_mismatch(const MachineFile& machine);

// Whether a GPU is on an NVSwitch fabric that has not registered it (gpus[].fabric not
// completed with status 0): the driver then refuses CUDA work (CUDA_ERROR_SYSTEM_NOT_READY).
bool fabric_unregistered(const MachineFile& machine);

// The version the running kernel module reports: kernel_module_version, else driver_version.
const std::string& running_module_version(const MachineFile& machine);

util::Expected<MachineFile> parse_machine(std::string_view json_text);

// Reads and parses a file.
util::Expected<MachineFile> load_machine(const std::string& path);

// Faults of `layer` (and `call`, when given) in file order.
std::vector<MachineFault> faults_for(const MachineFile& machine,
                                     const std::string& layer,
                                     const std::string& call = "");

}  // namespace peergate::snapshot
