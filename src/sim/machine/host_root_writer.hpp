// SPDX-License-Identifier: Apache-2.0
// Materialises a machine file's host facts as a small /sys and /proc tree, laid out as the
// kernel lays them out (real directories, real relative symlinks), so the host reader runs
// its real file code against a simulated machine (hwloc's HWLOC_FSROOT method).
#pragma once

#include "snapshot/machine_file.hpp"
#include "util/expected.hpp"

#include <string>

namespace peergate::sim {

// Bump when the tree's layout changes: it is part of the cache key of materialised roots.
inline constexpr const char* kHostRootLayout = "host-root/9";

// Writes under `dir` (created; it should not exist yet):
//   sys/kernel/iommu_groups/<n>/type            one group per GPU, none when iommu is "off";
//                                               "identity", or iommu_group_type when translating
//   sys/devices/pci<dddd>:<bb>/<bdf>/{numa_node,class,vendor,device}
//                                               one per GPU and NVSwitch (class 0x068000)
//   sys/devices/pci<dddd>:<bb>/<port>/.../<bdf>  below its upstream_ports, each port with
//                                               {class,numa_node,config} (ACS at 0x100)
//   sys/devices/.../<bdf>/iommu_group        -> ../../../kernel/iommu_groups/<n>
//   sys/bus/pci/devices/<bdf>                -> ../../../devices/pci<dddd>:<bb>/<bdf>
//   sys/devices/system/node/node<n>/cpumap     per NUMA node whose GPUs agree on their CPU
//                                               affinity: that list as the kernel's mask
//   proc/cmdline, proc/cpuinfo ("hypervisor" flag iff host.hypervisor),
//   proc/sys/kernel/random/boot_id, var/log/peergate-sim-dmesg.txt (host.kernel_log)
//   sys/module/nvidia, and sys/module/nvidia_peermem or
//   sys/kernel/mm/memory_peers/nv_mem/version as host.peer_memory_module says
//   proc/driver/nvidia/version (the first line of host.kernel_module's flavour, with
//   driver_version) and proc/sys/kernel/osrelease, where the file records them
util::Expected<void> write_host_root(const snapshot::MachineFile& machine, const std::string& dir);

// Where the simulated kernel log lies under a host root.
inline constexpr const char* kSimKernelLogPath = "/var/log/peergate-sim-dmesg.txt";

}  // namespace peergate::sim
