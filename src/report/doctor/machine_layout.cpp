// SPDX-License-Identifier: Apache-2.0
#include "report/doctor/machine_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <map>

namespace peergate::report::doctor {

namespace {

constexpr double kMargin = 8;
constexpr double kGpuWidth = 168;
constexpr double kNicWidth = 104;
constexpr double kLeafHeight = 66;
constexpr double kGap = 16;
constexpr double kGroupPad = 12;
constexpr double kGroupTitle = 24;
constexpr double kPortWidth = 140;  // "04:08.0 ACS redirect" fits
constexpr double kPortHeight = 26;
constexpr double kPortRow = 44;
constexpr std::size_t kMaxNics = 16;
constexpr int kUnknownNode = INT_MAX;

// "0000:18:00.0" -> "18:00.0": the domain is almost always 0 and costs width.
std::string short_bus(const model::PciAddress& address) {
    const std::string full = address.to_sysfs();
    return full.rfind("0000:", 0) == 0 ? full.substr(5) : full;
}

// A leaf before it has a place: which group it joins and the ports above it, nearest first.
struct Pending {
    LeafBox leaf;
    int node = kUnknownNode;
    std::string cpus;
    std::vector<model::PciPort> ports;
};

std::vector<Pending> gpu_leaves(const policy::doctor::DoctorInput& input,
                                const model::Topology& topology) {
    std::vector<Pending> out;
    for (const auto& gpu : topology.gpus) {
        if (!policy::doctor::is_examined(input, gpu.index)) {
            continue;
        }
        Pending p{.leaf = {.gpu = true,
                           .index = gpu.index,
                           .title = fmt::format("GPU{}", gpu.index),
                           .detail = gpu.name,
                           .bus = gpu.pci ? short_bus(*gpu.pci) : ""},
                  .node = gpu.numa_node.value_or(kUnknownNode),
                  .cpus = gpu.cpu_affinity};
        if (const auto ports = input.ports.find(gpu.index); ports != input.ports.end()) {
            p.ports = ports->second;
        }
        out.push_back(std::move(p));
    }
    return out;
}

// Physical NICs only: a virtual function sits where its physical function does.
std::vector<Pending> nic_leaves(const policy::doctor::DoctorInput& input) {
    std::vector<Pending> out;
    for (std::size_t k = 0; k < input.nics.size() && out.size() < kMaxNics; ++k) {
        const auto& nic = input.nics[k];
        if (nic.physical_function) {
            continue;
        }
        const std::string name = !nic.rdma_devices.empty() ? nic.rdma_devices.front()
                                 : !nic.interfaces.empty() ? nic.interfaces.front()
                                                           : "NIC";
        out.push_back(Pending{.leaf = {.gpu = false,
                                       .index = static_cast<int>(k),
                                       .title = name,
                                       .detail = "NIC",
                                       .bus = short_bus(nic.path.device)},
                              .node = nic.numa_node.value_or(kUnknownNode),
                              .ports = nic.path.ports});
    }
    return out;
}

std::string group_title(int node, const std::string& cpus) {
    if (node == kUnknownNode) {
        return "NUMA node unknown";
    }
    return cpus.empty() ? fmt::format("NUMA {}", node)
                        : fmt::format("NUMA {} · CPUs {}", node, cpus);
}

// Groups left to right by node, unknown last; inside each, GPUs by index, then NICs.
void place_groups(std::vector<Pending>& pending, double top, MachineLayout& layout) {
    std::stable_sort(pending.begin(), pending.end(), [](const Pending& a, const Pending& b) {
        return a.node != b.node ? a.node < b.node : (a.leaf.gpu && !b.leaf.gpu);
    });
    double x = kMargin;
    for (std::size_t k = 0; k < pending.size();) {
        const int node = pending[k].node;
        // The title goes under the leaves: edges to the fabric and NVLink arcs leave the
        // leaves' tops and would cross it there.
        GroupBox group{.box = {x, top, 0, kGroupPad + kLeafHeight + kGroupTitle}};
        std::string cpus;
        double leaf_x = x + kGroupPad;
        for (; k < pending.size() && pending[k].node == node; ++k) {
            auto& leaf = pending[k].leaf;
            const double w = leaf.gpu ? kGpuWidth : kNicWidth;
            leaf.box = {leaf_x, top + kGroupPad, w, kLeafHeight};
            leaf.port = pending[k].ports.empty() ? std::nullopt
                                                 : std::optional(pending[k].ports.front().address);
            cpus = cpus.empty() ? pending[k].cpus : cpus;
            leaf_x += w + kGap;
            layout.leaves.push_back(leaf);
        }
        group.box.w = leaf_x - kGap + kGroupPad - x;
        group.title = group_title(node, cpus);
        layout.groups.push_back(group);
        x += group.box.w + kGap;
    }
    layout.width = std::max(x - kGap + kMargin, 640.0);
}

// One entry per port: its depth from the root, the leaves below it, its parent and ACS.
struct PortTrack {
    std::size_t level = 0;
    std::vector<double> below;
    std::optional<model::PciAddress> parent;
    bool acs_redirect = false;
};

std::size_t track_ports(const std::vector<Pending>& pending,
                        const MachineLayout& layout,
                        std::map<model::PciAddress, PortTrack>& tracks) {
    std::size_t depth = 0;
    for (std::size_t k = 0; k < pending.size(); ++k) {
        const auto& chain = pending[k].ports;  // nearest first
        depth = std::max(depth, chain.size());
        for (std::size_t i = 0; i < chain.size(); ++i) {
            auto [it, fresh] = tracks.try_emplace(chain[i].address);
            if (fresh) {
                it->second.level = chain.size() - 1 - i;
                it->second.parent =
                    i + 1 < chain.size() ? std::optional(chain[i + 1].address) : std::nullopt;
                it->second.acs_redirect = chain[i].acs && chain[i].acs->redirects();
            }
            it->second.below.push_back(layout.leaves[k].box.cx());
        }
    }
    return depth;
}

// Ports of one row that would touch (a NIC's port beside a GPU's) are pushed apart, left to
// right; each keeps its edges, so the tree still reads.
void spread_rows(std::vector<PortBox>& ports) {
    std::sort(ports.begin(), ports.end(), [](const PortBox& a, const PortBox& b) {
        return a.box.y != b.box.y ? a.box.y < b.box.y : a.box.x < b.box.x;
    });
    for (std::size_t k = 1; k < ports.size(); ++k) {
        auto& left = ports[k - 1].box;
        auto& right = ports[k].box;
        if (left.y == right.y && right.x < left.x + left.w + kGap / 2) {
            right.x = left.x + left.w + kGap / 2;
        }
    }
}

// Root ports on the bottom row, each port centred over the leaves below it.
void place_ports(const std::vector<Pending>& pending, double top, MachineLayout& layout) {
    std::map<model::PciAddress, PortTrack> tracks;
    const std::size_t depth = track_ports(pending, layout, tracks);
    for (const auto& [address, track] : tracks) {
        double sum = 0;
        for (double x : track.below) {
            sum += x;
        }
        const double cx = sum / static_cast<double>(track.below.size());
        const double row = static_cast<double>(depth - 1 - track.level);
        layout.ports.push_back(
            PortBox{.box = {cx - kPortWidth / 2, top + row * kPortRow, kPortWidth, kPortHeight},
                    .address = address,
                    .acs_redirect = track.acs_redirect,
                    .parent = track.parent});
    }
    spread_rows(layout.ports);
    for (const auto& port : layout.ports) {
        layout.width = std::max(layout.width, port.box.x + port.box.w + kMargin);
    }
    // Without ports read (a VM, a simulated machine, no sysfs) the leaves still end at the
    // root complex, drawn as not read.
    layout.root =
        Box{kMargin, top + static_cast<double>(depth) * kPortRow, layout.width - 2 * kMargin, 24};
}

bool any_nvlink(const model::Topology& t) {
    for (std::size_t p = 0; p < t.size(); ++p) {
        for (std::size_t q = 0; q < t.size(); ++q) {
            if (p != q && t.matrix[p][q].is_nvlink()) {
                return true;
            }
        }
    }
    return false;
}

bool reaches_a_switch(const policy::doctor::DoctorInput& input) {
    return std::any_of(input.links.begin(), input.links.end(), [&](const auto& links) {
        return links.to_switch > 0 && policy::doctor::is_examined(input, links.gpu);
    });
}

}  // namespace

MachineLayout lay_out_machine(const policy::doctor::DoctorInput& input, int problem_pairs) {
    MachineLayout layout;
    const auto* topology = input.discovery.described();
    if (topology == nullptr) {
        return layout;
    }
    auto pending = gpu_leaves(input, *topology);
    for (auto& nic : nic_leaves(input)) {
        pending.push_back(std::move(nic));
    }
    const bool fabric = reaches_a_switch(input);
    const bool arcs = !fabric && any_nvlink(*topology);
    layout.arc_top = fabric ? 84 : 40;
    place_groups(pending, fabric ? 112 : arcs ? 100 : 40, layout);
    const double groups_bottom = layout.groups.empty() ? 100 : layout.groups.front().box.bottom();
    layout.band_top = groups_bottom + 10;
    layout.band_height = 14 + 16 * static_cast<double>(std::min(problem_pairs, 12));
    place_ports(pending, layout.band_top + layout.band_height + 12, layout);
    // The bars span everything placed, the ports pushed apart included.
    layout.host = Box{kMargin, kMargin, layout.width - 2 * kMargin, 24};
    if (fabric) {
        layout.fabric = Box{kMargin, 44, layout.width - 2 * kMargin, 28};
    }
    if (layout.root) {
        layout.root->w = layout.width - 2 * kMargin;
    }
    layout.height =
        (layout.root ? layout.root->bottom() : layout.band_top + layout.band_height) + kMargin;
    return layout;
}

const LeafBox* gpu_leaf(const MachineLayout& layout, int index) {
    for (const auto& leaf : layout.leaves) {
        if (leaf.gpu && leaf.index == index) {
            return &leaf;
        }
    }
    return nullptr;
}

}  // namespace peergate::report::doctor
