// SPDX-License-Identifier: Apache-2.0
// What sysfs says of one PCI function (a GPU or a port above it), kept as the kernel writes
// it: NCCL's topology file records these values verbatim, so they are never reformatted.
#pragma once

#include <optional>
#include <string>

namespace peergate::model {

struct PciAttributes {
    std::string pci_class;         // "0x030200"; empty when not read
    std::string vendor;            // "0x10de"
    std::string device;            // "0x2330"
    std::string subsystem_vendor;  // "0x10de"
    std::string subsystem_device;  // "0x16c1"
    std::string max_link_speed;    // "16.0 GT/s PCIe"; "8 GT/s" on kernels before 5.7
    std::optional<int> max_link_width;
    // What the link trained at. A GPU lowers its speed when idle (power saving, not a fault);
    // its width stays where it trained.
    std::string current_link_speed;
    std::optional<int> current_link_width;
    std::optional<int> numa_node;  // -1 where the firmware names none

    // The node, nullopt where it was not read or the firmware names none.
    std::optional<int> named_numa_node() const {
        return numa_node && *numa_node >= 0 ? numa_node : std::nullopt;
    }

    friend bool operator==(const PciAttributes&, const PciAttributes&) = default;
};

}  // namespace peergate::model
