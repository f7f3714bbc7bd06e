// SPDX-License-Identifier: Apache-2.0
#include "sim/machine/host_root_writer.hpp"

#include "sim/machine/cpuinfo_text.hpp"
#include "snapshot/derived.hpp"
#include "snapshot/machine_aer.hpp"
#include "util/cpu_list.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <system_error>
#include <vector>

namespace peergate::sim {

namespace {

namespace fs = std::filesystem;

util::Unexpected write_error(const fs::path& path, const std::string& why) {
    return util::unexpected(util::ErrorCode::io,
                            fmt::format("cannot write {}: {}", path.string(), why));
}

util::Expected<void> write_text(const fs::path& path, const std::string& text) {
    std::error_code ec;
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
        return write_error(path.parent_path(), ec.message());
    }
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
        return write_error(path, "write failed");
    }
    return {};
}

// A port shared by several GPUs is written once per GPU: its link may already be there.
util::Expected<void> make_link(const std::string& target, const fs::path& link) {
    std::error_code ec;
    if (fs::is_symlink(link, ec)) {
        return {};
    }
    fs::create_directories(link.parent_path(), ec);
    fs::create_directory_symlink(target, link, ec);
    if (ec) {
        return write_error(link, ec.message());
    }
    return {};
}

// GeForce and RTX workstation boards enumerate as VGA controllers, data-centre parts as
// 3D controllers (lspci: "VGA compatible controller" 0x0300 vs "3D controller" 0x0302).
std::string gpu_class(const snapshot::MachineGpu& gpu) {
    const bool display =
        util::contains_word(gpu.name, "GeForce") || util::contains_word(gpu.name, "RTX");
    return display ? "0x030000" : "0x030200";
}

struct PciDevice {
    model::PciAddress pci;
    std::string pci_class;
    std::string vendor = "0x10de";
    std::uint16_t device_id = 0;
    std::optional<int> numa_node;
    std::optional<int> iommu_group;
    std::vector<snapshot::MachinePort> above;  // nearest first
    std::optional<snapshot::MachinePcieLink> pcie_link;
    std::optional<model::PciAer> aer;
    std::vector<std::pair<std::string, std::string>> class_devices;  // {"net/ib0", its uevent}
    std::optional<model::PciAddress> physfn;  // an SR-IOV virtual function's physical one
};

// Where sysfs keeps a device: under its root bus, inside every port above it
// ("pci0000:40/0000:40:01.1/0000:41:00.0/0000:42:00.0").
std::string device_path(const model::PciAddress& pci,
                        const std::vector<snapshot::MachinePort>& above) {
    const auto& top = above.empty() ? pci : above.back().pci;
    std::string path = fmt::format("pci{:04x}:{:02x}", top.domain, top.bus);
    for (auto it = above.rbegin(); it != above.rend(); ++it) {
        path += "/" + it->pci.to_sysfs();
    }
    return path + "/" + pci.to_sysfs();
}

// A port's 4 KiB configuration space: all zero but for the ACS extended capability at
// 0x100 when the port has one (id 0x000D, version 1, last in the list; every capability
// bit set, the control word as given). An unread port gives the 64 bytes non-root sees.
std::string port_config(const snapshot::MachinePort& port) {
    if (port.acs_unread) {
        return std::string(64, '\0');  // what a reader without root gets
    }
    std::string config(4096, '\0');
    if (port.acs_control) {
        const auto put16 = [&config](std::size_t at, std::uint16_t value) {
            config[at] = static_cast<char>(value & 0xFFU);
            config[at + 1] = static_cast<char>(value >> 8U);
        };
        put16(0x100, 0x000D);
        put16(0x102, 0x0001);
        put16(0x104, 0x007F);
        put16(0x106, *port.acs_control);
    }
    return config;
}

// The link attributes sysfs shows for a PCIe function; those the machine gives no value for
// are not written, as on a function without a PCIe capability.
util::Expected<void> write_link(const fs::path& dir,
                                const std::optional<snapshot::MachinePcieLink>& link) {
    if (!link) {
        return {};
    }
    for (const auto& [name, text] :
         {std::pair{"max_link_speed", link->max_speed},
          std::pair{"current_link_speed", link->current_speed},
          std::pair{"max_link_width", link->max_width ? std::to_string(*link->max_width) : ""},
          std::pair{"current_link_width",
                    link->current_width ? std::to_string(*link->current_width) : ""}}) {
        if (!text.empty()) {
            PEERGATE_TRY(write_text(dir / name, text + "\n"));
        }
    }
    return {};
}

// The AER statistics files of a function whose machine entry has "aer"; a file it leaves
// out is not written.
util::Expected<void> write_aer(const fs::path& dir, const std::optional<model::PciAer>& aer) {
    if (!aer) {
        return {};
    }
    for (const auto& [name, total, counters] :
         {std::tuple{"aer_dev_correctable", "TOTAL_ERR_COR", &aer->correctable},
          std::tuple{"aer_dev_nonfatal", "TOTAL_ERR_NONFATAL", &aer->nonfatal},
          std::tuple{"aer_dev_fatal", "TOTAL_ERR_FATAL", &aer->fatal}}) {
        if (*counters) {
            PEERGATE_TRY(write_text(dir / name, snapshot::aer_file_text(**counters, total)));
        }
    }
    return {};
}

// The ids the machine gives a port, each as sysfs writes it; one it leaves out is not written.
util::Expected<void> write_port_ids(const fs::path& dir, const snapshot::MachinePort& port) {
    for (const auto& [name, text] : {std::pair{"vendor", &port.vendor},
                                     std::pair{"device", &port.device},
                                     std::pair{"subsystem_vendor", &port.subsystem_vendor},
                                     std::pair{"subsystem_device", &port.subsystem_device}}) {
        if (!text->empty()) {
            PEERGATE_TRY(write_text(dir / name, *text + "\n"));
        }
    }
    return {};
}

// The ports above a device, each on the device's NUMA node (a PCIe tree has one root complex).
util::Expected<void> write_ports(const fs::path& root,
                                 const std::vector<snapshot::MachinePort>& above,
                                 std::optional<int> numa_node) {
    for (std::size_t k = 0; k < above.size(); ++k) {
        const std::vector<snapshot::MachinePort> further(
            above.begin() + static_cast<std::ptrdiff_t>(k) + 1, above.end());
        const std::string path = device_path(above[k].pci, further);
        const fs::path dir = root / "sys/devices" / path;
        PEERGATE_TRY(write_text(dir / "class", "0x060400\n"));
        PEERGATE_TRY(write_text(dir / "numa_node", fmt::format("{}\n", numa_node.value_or(-1))));
        PEERGATE_TRY(write_text(dir / "config", port_config(above[k])));
        PEERGATE_TRY(write_port_ids(dir, above[k]));
        PEERGATE_TRY(write_link(dir, above[k].pcie_link));
        PEERGATE_TRY(write_aer(dir, above[k].aer));
        PEERGATE_TRY(make_link("../../../devices/" + path,
                               root / "sys/bus/pci/devices" / above[k].pci.to_sysfs()));
    }
    return {};
}

util::Expected<void> write_pci_device(const fs::path& root, const PciDevice& d) {
    const std::string bdf = d.pci.to_sysfs();
    const std::string path = device_path(d.pci, d.above);
    const fs::path dev = root / "sys/devices" / path;
    PEERGATE_TRY(write_ports(root, d.above, d.numa_node));
    PEERGATE_TRY(write_text(dev / "numa_node", fmt::format("{}\n", d.numa_node.value_or(-1))));
    PEERGATE_TRY(write_text(dev / "class", d.pci_class + "\n"));
    PEERGATE_TRY(write_text(dev / "vendor", d.vendor + "\n"));
    PEERGATE_TRY(write_text(dev / "device", fmt::format("0x{:04x}\n", d.device_id)));
    PEERGATE_TRY(write_link(dev, d.pcie_link));
    PEERGATE_TRY(write_aer(dev, d.aer));
    for (const auto& [name, uevent] : d.class_devices) {
        PEERGATE_TRY(write_text(dev / name / "uevent", uevent));
    }
    std::string back;  // from the device's directory up to /sys
    for (std::size_t k = 0; k < 3 + d.above.size(); ++k) {
        back += "../";
    }
    if (d.iommu_group) {
        PEERGATE_TRY(make_link(fmt::format("{}kernel/iommu_groups/{}", back, *d.iommu_group),
                               dev / "iommu_group"));
    }
    if (d.physfn) {
        PEERGATE_TRY(make_link(back + "bus/pci/devices/" + d.physfn->to_sysfs(), dev / "physfn"));
    }
    return make_link("../../../devices/" + path, root / "sys/bus/pci/devices" / bdf);
}

// The network functions, each where sysfs keeps it, below its ports, with a directory per
// name the kernel gives it (its uevent as the kernel writes it).
util::Expected<void> write_nics(const snapshot::MachineFile& m, const fs::path& root) {
    for (const auto& nic : m.nics) {
        std::vector<std::pair<std::string, std::string>> names;
        for (const auto& name : nic.rdma_devices) {
            names.emplace_back("infiniband/" + name, "NAME=" + name + "\n");
        }
        for (const auto& name : nic.interfaces) {
            names.emplace_back("net/" + name, "INTERFACE=" + name + "\n");
        }
        PEERGATE_TRY(write_pci_device(
            root,
            PciDevice{.pci = nic.pci,
                      .pci_class = nic.pci_class,
                      .vendor = nic.vendor,
                      .device_id = util::parse_hex<std::uint16_t>(nic.device.substr(2)).value_or(0),
                      .numa_node = nic.numa_node,
                      .above = nic.upstream_ports,
                      .pcie_link = nic.pcie_link,
                      .aer = nic.aer,
                      .class_devices = std::move(names),
                      .physfn = nic.physfn}));
    }
    return {};
}

util::Expected<void> write_pci_tree(const snapshot::MachineFile& m, const fs::path& root) {
    const bool groups = m.host.iommu != "off";
    const std::string type =
        m.host.iommu == "translating"
            ? (m.host.iommu_group_type.empty() ? "DMA" : m.host.iommu_group_type)
            : "identity";
    for (std::size_t p = 0; p < m.gpus.size(); ++p) {
        const auto& gpu = m.gpus[p];
        const int group = static_cast<int>(p) + 1;
        // "unknown" (a recorded host whose group types could not be read): groups, no type.
        if (groups && m.host.iommu != "unknown") {
            PEERGATE_TRY(write_text(root / fmt::format("sys/kernel/iommu_groups/{}/type", group),
                                    type + "\n"));
        } else if (groups) {
            std::error_code ec;
            fs::create_directories(root / fmt::format("sys/kernel/iommu_groups/{}", group), ec);
        }
        PEERGATE_TRY(
            write_pci_device(root,
                             PciDevice{.pci = gpu.pci,
                                       .pci_class = gpu_class(gpu),
                                       .device_id = gpu.pci_device_id,
                                       .numa_node = gpu.numa_node,
                                       .iommu_group = groups ? std::optional(group) : std::nullopt,
                                       .above = gpu.upstream_ports,
                                       .pcie_link = gpu.pcie_link,
                                       .aer = gpu.aer}));
    }
    PEERGATE_TRY(write_nics(m, root));
    for (const auto& pci : snapshot::nvswitch_addresses(m)) {
        PEERGATE_TRY(write_pci_device(root, PciDevice{.pci = pci, .pci_class = "0x068000"}));
    }
    return {};
}

// The driver's /proc entry per GPU, as a live host has it; a simulated GPU's device file is
// /dev/nvidia<index>.
util::Expected<void> write_driver_proc(const snapshot::MachineFile& m, const fs::path& root) {
    for (const auto& gpu : m.gpus) {
        PEERGATE_TRY(write_text(
            root / fmt::format("proc/driver/nvidia/gpus/{}/information", gpu.pci.to_sysfs()),
            fmt::format("Model: \t\t {}\nGPU UUID: \t {}\nBus Location: \t {}\nDevice Minor: "
                        "\t {}\n",
                        gpu.name,
                        gpu.uuid,
                        gpu.pci.to_sysfs(),
                        gpu.index)));
    }
    return {};
}

// The CPUs' topology, where the machine file records it (Slurm's Cores= reads it).
util::Expected<void> write_cpu_topology(const snapshot::MachineFile& m, const fs::path& root) {
    for (const auto& cpu : m.host.cpus) {
        if (cpu.size() != 3) {
            continue;  // the schema refuses such rows; a machine built in code may still hold one
        }
        const fs::path dir = root / fmt::format("sys/devices/system/cpu/cpu{}/topology", cpu[0]);
        PEERGATE_TRY(write_text(dir / "physical_package_id", fmt::format("{}\n", cpu[1])));
        PEERGATE_TRY(write_text(dir / "core_id", fmt::format("{}\n", cpu[2])));
    }
    return {};
}

// Each NUMA node's cpumap: the CPU affinity its GPUs report, which on a real host is the
// node's CPUs. A node whose GPUs report different lists gets none.
util::Expected<void> write_numa_nodes(const snapshot::MachineFile& m, const fs::path& root) {
    std::map<int, std::string> lists;
    for (const auto& gpu : m.gpus) {
        if (gpu.numa_node && !gpu.cpu_affinity.empty()) {
            const auto [at, added] = lists.emplace(*gpu.numa_node, gpu.cpu_affinity);
            at->second = added || at->second == gpu.cpu_affinity ? at->second : "";
        }
    }
    for (const auto& [node, list] : lists) {
        if (const auto mask = util::cpu_mask_text(list); mask && node >= 0) {
            PEERGATE_TRY(write_text(
                root / fmt::format("sys/devices/system/node/node{}/cpumap", node), *mask + "\n"));
        }
    }
    return {};
}

// /sys/module with the GPU driver's own module, and the peer-memory module where the file
// names one, where NCCL looks for it.
util::Expected<void> write_modules(const snapshot::MachineHost& host, const fs::path& root) {
    PEERGATE_TRY(write_text(root / "sys/module/nvidia/refcnt", "1\n"));
    if (host.peer_memory_module == "nvidia_peermem") {
        return write_text(root / "sys/module/nvidia_peermem/refcnt", "0\n");
    }
    if (host.peer_memory_module == "nv_peer_mem") {
        return write_text(root / "sys/kernel/mm/memory_peers/nv_mem/version", "1.3-0\n");
    }
    return {};
}

// The running module's version file as the driver prints it, and the kernel's release.
util::Expected<void> write_kernel_identity(const snapshot::MachineFile& m, const fs::path& root) {
    if (!m.host.kernel_module.empty()) {
        const bool open = m.host.kernel_module == "open";
        PEERGATE_TRY(write_text(
            root / "proc/driver/nvidia/version",
            fmt::format("NVRM version: NVIDIA UNIX {}  {}  {}Mon Nov 30 00:00:00 UTC 2026\n",
                        open ? "Open Kernel Module for x86_64" : "x86_64 Kernel Module",
                        running_module_version(m),
                        open ? "Release Build  (peergate-sim)  " : "")));
    }
    if (!m.host.cpu_arch.empty()) {  // the sysctl Linux 6.1 added: uname's machine
        PEERGATE_TRY(write_text(root / "proc/sys/kernel/arch", m.host.cpu_arch + "\n"));
    }
    if (m.host.kernel_release.empty()) {
        return {};
    }
    return write_text(root / "proc/sys/kernel/osrelease", m.host.kernel_release + "\n");
}

}  // namespace

util::Expected<void> write_host_root(const snapshot::MachineFile& machine, const std::string& dir) {
    const fs::path root(dir);
    PEERGATE_TRY(write_pci_tree(machine, root));
    PEERGATE_TRY(write_text(root / "proc/cmdline", machine.host.kernel_cmdline + "\n"));
    PEERGATE_TRY(write_text(root / "proc/cpuinfo", cpuinfo_text(machine)));
    PEERGATE_TRY(write_driver_proc(machine, root));
    PEERGATE_TRY(write_cpu_topology(machine, root));
    PEERGATE_TRY(write_numa_nodes(machine, root));
    PEERGATE_TRY(write_text(root / "proc/sys/kernel/random/boot_id", machine.host.boot_id + "\n"));
    PEERGATE_TRY(write_modules(machine.host, root));
    PEERGATE_TRY(write_kernel_identity(machine, root));
    return write_text(root / std::string(kSimKernelLogPath).substr(1), machine.host.kernel_log);
}

}  // namespace peergate::sim
