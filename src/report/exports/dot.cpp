// SPDX-License-Identifier: Apache-2.0
#include "report/exports/dot.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace peergate::report::exports {

namespace {

std::string node_line(const model::Gpu& gpu) {
    std::string label = fmt::format("GPU {}", gpu.index);
    for (const std::string& line : {gpu.name, gpu.pci ? gpu.pci->to_nvml() : std::string()}) {
        if (!line.empty()) {
            label += "\\n" + dot_escape(line);
        }
    }
    return fmt::format("    gpu{} [label=\"{}\"];\n", gpu.index, label);
}

// A card by its RDMA devices (a dual-port ConnectX: both ports), or "NIC" where it has none.
std::string nic_line(const model::Nic& nic, std::size_t n) {
    const std::string name = nic.rdma_devices.empty() ? "NIC" : util::join(nic.rdma_devices, ",");
    return fmt::format("    nic{} [label=\"{}\\n{}\", shape=ellipse];\n",
                       n,
                       dot_escape(name),
                       nic.path.device.to_sysfs());
}

// The node lines, by NUMA node (-1: unknown), and the CPUs its GPUs report.
struct Members {
    std::map<int, std::string> lines;
    std::map<int, std::string> cpus;
};

// One cluster per NUMA node (a box titled with its CPUs); GPUs and NICs of unknown node outside.
std::string nodes(const Members& members) {
    std::string out;
    for (const auto& [numa, lines] : members.lines) {
        if (numa < 0) {
            continue;
        }
        const auto cpus = members.cpus.find(numa);
        out += fmt::format("  subgraph cluster_numa{} {{\n    label=\"NUMA {}{}\";\n",
                           numa,
                           numa,
                           cpus == members.cpus.end() || cpus->second.empty()
                               ? ""
                               : " (CPUs " + dot_escape(cpus->second) + ")");
        out += lines + "  }\n";
    }
    const auto loose = members.lines.find(-1);
    return out + (loose == members.lines.end() ? "" : loose->second);
}

// The GPUs, and the physical NICs with an edge to each GPU they share a PCIe switch with
// (PIX, PXB: GPUDirect RDMA's short paths); `edges` gets those edges.
Members members(const ExportFacts& facts, const std::vector<model::Gpu>& gpus, std::string& edges) {
    Members out;
    for (const auto& gpu : gpus) {
        const int numa = gpu.numa_node.value_or(-1);
        out.lines[numa] += node_line(gpu);
        out.cpus.emplace(numa, gpu.cpu_affinity);
    }
    const auto affinity = examined_nic_affinity(facts, gpus);
    for (std::size_t n = 0; n < affinity.nics.size(); ++n) {
        if (affinity.nics[n].physical_function) {
            continue;
        }
        out.lines[affinity.nics[n].numa_node.value_or(-1)] += nic_line(affinity.nics[n], n);
        for (std::size_t p = 0; p < gpus.size(); ++p) {
            const auto& label = affinity.labels[n][p];
            if (label.kind == model::LinkKind::pix || label.kind == model::LinkKind::pxb) {
                edges += fmt::format("  gpu{} -- nic{} [label=\"{}\", style=dotted, color=blue];\n",
                                     gpus[p].index,
                                     n,
                                     label.to_token());
            }
        }
    }
    return out;
}

bool lost_data(const ExportFacts& facts, int a, int b) {
    for (const auto* layers : {pair_layers(facts, a, b), pair_layers(facts, b, a)}) {
        if (layers != nullptr && layers->probe == "data_lost") {
            return true;
        }
    }
    return false;
}

std::string edge(
    const ExportFacts& facts, const model::Topology& topology, int a, int b, int widest) {
    const auto label = topology.label(a, b);
    const std::string token = label ? label->to_token() : "unknown";
    std::string style;
    if (label && label->is_nvlink()) {
        style = fmt::format("penwidth={:.1f}", 1.0 + 4.0 * label->nvlinks / std::max(widest, 1));
    } else {
        style = "style=dashed, color=gray";
    }
    if (lost_data(facts, a, b)) {
        return fmt::format(
            "  gpu{} -- gpu{} [label=\"{} data lost\", {}, color=red, fontcolor=red];\n",
            a,
            b,
            token,
            label && label->is_nvlink() ? style : "style=dashed");
    }
    return fmt::format("  gpu{} -- gpu{} [label=\"{}\", {}];\n", a, b, token, style);
}

std::string title(const ExportFacts& facts) {
    const std::string verdict = facts.gate.p2p ? "peergate: P2P allowed" : "peergate: P2P vetoed";
    return facts.gate.rule.empty() ? verdict : verdict + " (" + facts.gate.rule + ")";
}

}  // namespace

std::string dot_escape(std::string_view text) {
    std::string out;
    for (char c : text) {
        if (c == '"' || c == '\\') {
            out += '\\';
        }
        out += c == '\n' ? ' ' : c;
    }
    return out;
}

std::string export_dot(const ExportFacts& facts) {
    const auto gpus = examined_gpus(facts);
    std::string out =
        fmt::format("graph peergate {{\n  label=\"{}\";\n  labelloc=t;\n  node [shape=box];\n",
                    dot_escape(title(facts)));
    std::string nic_edges;
    out += nodes(members(facts, gpus, nic_edges));
    const model::Topology* topology = facts.doctor.discovery.described();
    if (topology != nullptr) {
        int widest = 0;
        for (const auto& a : gpus) {
            for (const auto& b : gpus) {
                widest = std::max(
                    widest, a.index == b.index ? 0 : nvlinks_between(*topology, a.index, b.index));
            }
        }
        for (std::size_t i = 0; i < gpus.size(); ++i) {
            for (std::size_t j = i + 1; j < gpus.size(); ++j) {
                out += edge(facts, *topology, gpus[i].index, gpus[j].index, widest);
            }
        }
    }
    return out + nic_edges + "}\n";
}

}  // namespace peergate::report::exports
