// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/nic_affinity.hpp"

#include <cstdint>
#include <utility>

namespace peergate::policy::placement {

namespace {

using model::LinkKind;
using model::LinkLabel;

// The root bus a function's traffic reaches the host bridge on: its root port's bus, or its
// own where it sits on the root bus itself.
std::pair<std::uint32_t, std::uint8_t> root_bus(const model::PciPath& path) {
    const auto& top = path.ports.empty() ? path.device : path.ports.back().address;
    return {top.domain, top.bus};
}

std::optional<std::size_t> index_of(const std::vector<model::PciPort>& ports,
                                    const model::PciAddress& address) {
    for (std::size_t k = 0; k < ports.size(); ++k) {
        if (ports[k].address == address) {
            return k;
        }
    }
    return std::nullopt;
}

LinkLabel across_host_bridges(const PciPlace& a, const PciPlace& b) {
    if (a.numa_node.has_value() != b.numa_node.has_value()) {
        return LinkLabel::of(LinkKind::unknown);
    }
    return LinkLabel::of(a.numa_node == b.numa_node ? LinkKind::node : LinkKind::sys);
}

}  // namespace

LinkLabel pci_path_label(const PciPlace& a, const PciPlace& b) {
    // The nearest port both paths pass. Each path starts with the downstream port the function
    // is plugged into, then that switch's upstream port: meeting at or below both upstream
    // ports is one switch. A root port has a single link below it, so two functions that meet
    // at one met below it first.
    for (std::size_t i = 0; i < a.path.ports.size(); ++i) {
        if (const auto j = index_of(b.path.ports, a.path.ports[i].address)) {
            return LinkLabel::of(i <= 1 && *j <= 1 ? LinkKind::pix : LinkKind::pxb);
        }
    }
    if (root_bus(a.path) == root_bus(b.path)) {
        return LinkLabel::of(LinkKind::phb);
    }
    return across_host_bridges(a, b);
}

NicAffinity nic_affinity(const std::vector<std::optional<PciPlace>>& gpus,
                         std::vector<model::Nic> nics) {
    NicAffinity out{.nics = std::move(nics), .labels = {}};
    for (const auto& nic : out.nics) {
        const PciPlace place{.path = nic.path, .numa_node = nic.numa_node};
        auto& row = out.labels.emplace_back();
        for (const auto& gpu : gpus) {
            row.push_back(gpu ? pci_path_label(*gpu, place) : LinkLabel::of(LinkKind::unknown));
        }
    }
    return out;
}

NicAffinity nic_affinity_from_text(const model::Topology& topology) {
    NicAffinity out{.nics = {}, .labels = {}, .from_text = true};
    for (const auto& nic : topology.nics) {
        model::Nic named;
        if (!nic.device.empty()) {
            named.rdma_devices.push_back(nic.device);
        }
        out.nics.push_back(std::move(named));
        out.labels.push_back(nic.paths);
    }
    return out;
}

std::vector<std::size_t> nearest_nics(const NicAffinity& affinity, std::size_t position) {
    std::optional<LinkLabel> best;
    const auto physical = [&](std::size_t n) { return !affinity.nics[n].physical_function; };
    for (std::size_t n = 0; n < affinity.labels.size(); ++n) {
        const auto& label = affinity.labels[n][position];
        if (physical(n) && label.kind != LinkKind::unknown && (!best || label < *best)) {
            best = label;
        }
    }
    std::vector<std::size_t> out;
    for (std::size_t n = 0; best && n < affinity.labels.size(); ++n) {
        if (physical(n) && affinity.labels[n][position] == *best) {
            out.push_back(n);
        }
    }
    return out;
}

}  // namespace peergate::policy::placement
