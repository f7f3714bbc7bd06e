// SPDX-License-Identifier: Apache-2.0
// Builders for gate tests: a topology from legend tokens, an input from a few facts, and the
// checks the gate's tests share.
#pragma once

#include "model/topology.hpp"
#include "policy/gate/gate.hpp"

#include <algorithm>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

namespace peergate::test {

// Topology from rows of legend tokens ("X", "NV12", "SYS"...) and one name per GPU.
inline model::Topology topology(const std::vector<std::vector<std::string>>& rows,
                                const std::vector<std::string>& names,
                                model::TopologySource source = model::TopologySource::nvidia_smi) {
    model::Topology t;
    t.source = source;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        t.gpus.push_back(model::Gpu{.index = static_cast<int>(i), .name = names.at(i)});
        std::vector<model::LinkLabel> row;
        for (const auto& token : rows[i]) {
            row.push_back(model::LinkLabel::parse(token).value());
        }
        t.matrix.push_back(std::move(row));
    }
    return t;
}

inline std::vector<std::string> repeat(const std::string& name, std::size_t n) {
    return std::vector<std::string>(n, name);
}

// 4x A100 with NVLink bridges on 0-1 and 2-3, SYS across (unsloth_TOPO_BRIDGED_4X).
inline model::Topology bridged_a100_4x() {
    return topology({{"X", "NV12", "SYS", "SYS"},
                     {"NV12", "X", "SYS", "SYS"},
                     {"SYS", "SYS", "X", "NV12"},
                     {"SYS", "SYS", "NV12", "X"}},
                    repeat("NVIDIA A100-SXM4-80GB", 4));
}

// n GPUs, every pair NV18 (HGX B200 behind NVSwitch).
inline model::Topology uniform_nvlink(std::size_t n, const std::string& name = "NVIDIA B200") {
    std::vector<std::vector<std::string>> rows(n, std::vector<std::string>(n, "NV18"));
    for (std::size_t i = 0; i < n; ++i) {
        rows[i][i] = "X";
    }
    return topology(rows, repeat(name, n));
}

// n GPUs, every pair `label` (a PCIe box).
inline model::Topology pcie_box(std::size_t n,
                                const std::string& name,
                                const std::string& label = "NODE") {
    std::vector<std::vector<std::string>> rows(n, std::vector<std::string>(n, label));
    for (std::size_t i = 0; i < n; ++i) {
        rows[i][i] = "X";
    }
    return topology(rows, repeat(name, n));
}

inline util::EnvMap env(std::initializer_list<std::pair<const char*, const char*>> vars) {
    util::EnvMap e;
    for (const auto& [name, value] : vars) {
        e.set(name, value);
    }
    return e;
}

inline model::HostFacts bare_metal(model::IommuMode iommu) {
    model::HostFacts h;
    h.iommu = iommu;
    h.hypervisor = false;
    return h;
}

inline model::HostFacts guest(model::IommuMode iommu) {
    model::HostFacts h;
    h.iommu = iommu;
    h.hypervisor = true;
    return h;
}

inline policy::gate::GateInput input(model::Topology t,
                                     policy::gate::Selection selection = {},
                                     util::EnvMap e = {}) {
    policy::gate::GateInput in;
    in.topology = std::move(t);
    in.selection = std::move(selection);
    in.env = std::move(e);
    in.host = bare_metal(model::IommuMode::off);
    return in;
}

inline policy::gate::Selection gpus(std::vector<int> ids) {
    return policy::gate::Selection::list(std::move(ids));
}

// Two sockets as on an HGX B200: GPUs 0-3 on node 0 near CPUs 0-47,96-143, GPUs 4-7 on node 1
// near the rest.
inline std::vector<model::Gpu> two_socket_gpus() {
    std::vector<model::Gpu> out;
    for (int g = 0; g < 8; ++g) {
        out.push_back(model::Gpu{.index = g,
                                 .numa_node = g / 4,
                                 .cpu_affinity = g < 4 ? "0-47,96-143" : "48-95,144-191"});
    }
    return out;
}

// Whether any of the decision's warnings contains `text`.
inline bool warns_about(const policy::gate::GateDecision& d, const std::string& text) {
    return std::any_of(d.warnings.begin(), d.warnings.end(), [&](const std::string& w) {
        return w.find(text) != std::string::npos;
    });
}

}  // namespace peergate::test
