// SPDX-License-Identifier: Apache-2.0
// Where the drawing of `doctor --html` puts each part of the machine: one box per NUMA node
// holding its GPUs (and the NICs beside them), the NVSwitch fabric above them where the GPUs
// reach one, and the PCIe ports below them as a tree that ends at the root ports. Pure
// geometry (SVG user units); report/doctor/machine_svg.cpp draws it. docs/doctor.md, "HTML".
#pragma once

#include "model/pci_address.hpp"
#include "policy/doctor/doctor.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::report::doctor {

struct Box {
    double x = 0;
    double y = 0;
    double w = 0;
    double h = 0;

    double cx() const { return x + w / 2; }

    double bottom() const { return y + h; }
};

// A GPU or a NIC: the leaves of the PCIe tree.
struct LeafBox {
    Box box;
    bool gpu = true;
    int index = 0;       // nvidia-smi index of a GPU; position in input.nics of a NIC
    std::string title;   // "GPU0", "mlx5_0"
    std::string detail;  // "NVIDIA H100 80GB HBM3", "NIC"
    std::string bus;     // "18:00.0"
    std::optional<model::PciAddress> port;  // the PCIe port it is plugged into, if read
};

// A NUMA node's box: its GPUs and NICs, titled with the node and its CPUs.
struct GroupBox {
    Box box;
    std::string title;  // "NUMA 0 · CPUs 0-47,96-143", "NUMA unknown"
};

// A root or switch port; `parent` is the port above it (none for a root port).
struct PortBox {
    Box box;
    model::PciAddress address;
    bool acs_redirect = false;  // P2P requests or completions sent up to the root complex
    std::optional<model::PciAddress> parent;
};

struct MachineLayout {
    double width = 0;
    double height = 0;
    Box host;                      // the top line: IOMMU, hypervisor
    std::optional<Box> fabric;     // the NVSwitch fabric, where the GPUs reach one
    std::vector<GroupBox> groups;  // NUMA nodes, ascending, unknown last
    std::vector<LeafBox> leaves;   // GPUs then NICs of each group, in group order
    std::vector<PortBox> ports;    // every port above a leaf, each once
    double arc_top = 0;            // NVLink arcs rise from the GPUs' tops to here at most
    double band_top = 0;           // the band below the groups where problem pairs are drawn
    double band_height = 0;
    std::optional<Box> root;  // the root complex bar below the root ports
};

// Lays out the examined GPUs of input's topology, the physical NICs (at most 16) and the
// ports above both; `problem_pairs` sizes the band drawn under the groups. No topology: an
// empty layout (width 0).
MachineLayout lay_out_machine(const policy::doctor::DoctorInput& input, int problem_pairs);

// The leaf of GPU `index`, or nullptr.
const LeafBox* gpu_leaf(const MachineLayout& layout, int index);

}  // namespace peergate::report::doctor
