// SPDX-License-Identifier: Apache-2.0
#include "report/export_dot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace peergate::report {

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

// One cluster per NUMA node (a box titled with its CPUs); GPUs of unknown NUMA node outside.
std::string nodes(const std::vector<model::Gpu>& gpus) {
    std::map<int, std::vector<const model::Gpu*>> by_numa;
    std::string loose;
    for (const auto& gpu : gpus) {
        if (gpu.numa_node) {
            by_numa[*gpu.numa_node].push_back(&gpu);
        } else {
            loose += node_line(gpu);
        }
    }
    std::string out;
    for (const auto& [numa, members] : by_numa) {
        const std::string& cpus = members.front()->cpu_affinity;
        out += fmt::format("  subgraph cluster_numa{} {{\n    label=\"NUMA {}{}\";\n",
                           numa,
                           numa,
                           cpus.empty() ? "" : " (CPUs " + dot_escape(cpus) + ")");
        for (const auto* gpu : members) {
            out += node_line(*gpu);
        }
        out += "  }\n";
    }
    return out + loose;
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
    out += nodes(gpus);
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
    return out + "}\n";
}

}  // namespace peergate::report
