// SPDX-License-Identifier: Apache-2.0
// The drawing (docs/export.md, dot): what a reader must see at a glance is how the GPUs are
// joined and what is wrong. So an NVSwitch fabric is one node that every GPU on it joins
// (not 28 identical GPU-to-GPU edges), PCIe paths are drawn only between GPUs no NVLink joins
// (NVLink carries the others' traffic; --dot-all-paths draws them all), and each fault has its
// own colour, explained by a legend that lists the ones drawn.
#include "report/exports/dot.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace peergate::report::exports {

namespace {

// The legend's entries, by what the drawing used.
enum class Mark {
    nvlink,
    pcie,
    implied,
    nvswitch,
    links_down,
    data_lost,
    probe_error,
    slower,
    acs,
    nic
};

const std::map<Mark, std::string>& legend_texts() {
    static const std::map<Mark, std::string> texts{
        {Mark::nvlink, "black line: NVLink (NV#, wider with more links)"},
        {Mark::pcie, "grey dashes: PCIe path between GPUs no NVLink joins (its topo -m class)"},
        {Mark::implied,
         "no line, one NUMA box: NODE (PCIe through one CPU's host bridges); two boxes: SYS "
         "(across CPUs)"},
        {Mark::nvswitch, "hexagon: the NVSwitch fabric; a GPU's line gives its active links"},
        {Mark::links_down,
         "<font color=\"red\">red GPU: NVLinks down (which ones, how many up)</font>"},
        {Mark::data_lost, "<font color=\"red\">red line: copies between the two lost data</font>"},
        {Mark::probe_error,
         "<font color=\"orange\">orange line: the probe could not finish between the two</font>"},
        {Mark::slower,
         "<font color=\"darkorange\">orange line: P2P measured slower than staged copies</font>"},
        {Mark::acs,
         "<font color=\"purple\">purple: ACS redirect sends the pair's traffic to the "
         "root complex</font>"},
        {Mark::nic, "<font color=\"blue\">blue dots: a NIC on the GPU's PCIe switch</font>"}};
    return texts;
}

std::string gpu_node(const ExportFacts& facts, const model::Gpu& gpu, std::set<Mark>& used) {
    std::string label = fmt::format("GPU {}", gpu.index);
    for (const std::string& line : {gpu.name, gpu.pci ? gpu.pci->to_nvml() : std::string()}) {
        if (!line.empty()) {
            label += "\\n" + dot_escape(line);
        }
    }
    const auto* links = gpu_links(facts, gpu.index);
    if (links == nullptr || links->down.empty()) {
        return fmt::format("    gpu{} [label=\"{}\"];\n", gpu.index, label);
    }
    used.insert(Mark::links_down);
    std::vector<std::string> down;
    for (int link : links->down) {
        down.push_back(std::to_string(link));
    }
    return fmt::format(
        "    gpu{} [label=\"{}\\nNVLinks {} of {} up; down: {}\", color=red, fontcolor=red, "
        "penwidth=2];\n",
        gpu.index,
        label,
        links->up(),
        links->slots,
        util::join(down, ","));
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
std::string clusters(const Members& members) {
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
Members members(const ExportFacts& facts,
                const std::vector<model::Gpu>& gpus,
                std::string& edges,
                std::set<Mark>& used) {
    Members out;
    for (const auto& gpu : gpus) {
        const int numa = gpu.numa_node.value_or(-1);
        out.lines[numa] += gpu_node(facts, gpu, used);
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
                used.insert(Mark::nic);
                edges += fmt::format("  gpu{} -- nic{} [label=\"{}\", style=dotted, color=blue];\n",
                                     gpus[p].index,
                                     n,
                                     label.to_token());
            }
        }
    }
    return out;
}

// What went wrong between two GPUs, either way: the label's words and the colour.
struct PairFault {
    std::vector<std::string> words;
    std::string color;
};

// The rates of the direction a bench measured slower with P2P than staged.
std::string slower_words(const ExportFacts& facts, int a, int b) {
    for (const auto& [src, dst] : {std::pair{a, b}, std::pair{b, a}}) {
        const auto* pair = facts.assessment.pair(src, dst);
        const auto* l = pair_layers(facts, src, dst);
        if (pair != nullptr && l != nullptr &&
            pair->state == policy::assess::PairState::slower_than_staged) {
            return fmt::format("P2P {:.1f} < staged {:.1f} GB/s",
                               l->p2p_gbps.value_or(0),
                               l->staged_gbps.value_or(0));
        }
    }
    return "P2P slower than staged";
}

// The worse state of the two directions (policy/assess), as DOT draws it.
PairFault pair_fault(const ExportFacts& facts, int a, int b, std::set<Mark>& used) {
    using policy::assess::PairState;
    PairFault fault;
    const auto note = [&](Mark mark, std::string words, const char* color) {
        used.insert(mark);
        fault.words.push_back(std::move(words));
        fault.color = fault.color.empty() ? color : fault.color;
    };
    switch (facts.assessment.worst_of(a, b).value_or(PairState::pcie_unverified)) {
        case PairState::data_lost:
            note(Mark::data_lost, "data lost", "red");
            break;
        case PairState::probe_error:
            note(Mark::probe_error, "probe error", "orange");
            break;
        case PairState::slower_than_staged:
            note(Mark::slower, slower_words(facts, a, b), "darkorange");
            break;
        default:
            break;
    }
    const auto* ab = facts.assessment.pair(a, b);
    const auto* ba = facts.assessment.pair(b, a);
    if ((ab != nullptr && ab->redirected) || (ba != nullptr && ba->redirected)) {
        note(Mark::acs, "ACS redirect", "purple");
    }
    return fault;
}

// The GPUs NVML places on an NVSwitch fabric (active links whose far end is a switch).
std::set<int> fabric_gpus(const ExportFacts& facts, const std::vector<model::Gpu>& gpus) {
    std::set<int> on_fabric;
    for (const auto& gpu : gpus) {
        if (const auto* links = gpu_links(facts, gpu.index); links && links->to_switch > 0) {
            on_fabric.insert(gpu.index);
        }
    }
    return on_fabric;
}

// The fabric as one node, and each GPU's line to it with its active links.
std::string fabric_lines(const ExportFacts& facts, const std::set<int>& on_fabric) {
    int widest = 1;
    for (int gpu : on_fabric) {
        widest = std::max(widest, gpu_links(facts, gpu)->slots);
    }
    std::string out = "  nvswitch [label=\"NVSwitch fabric\", shape=hexagon];\n";
    for (int gpu : on_fabric) {
        const auto* links = gpu_links(facts, gpu);
        const double width = 1.0 + 4.0 * links->to_switch / widest;
        out += links->down.empty()
                   ? fmt::format("  gpu{} -- nvswitch [label=\"NV{}\", penwidth={:.1f}];\n",
                                 gpu,
                                 links->to_switch,
                                 width)
                   : fmt::format(
                         "  gpu{} -- nvswitch [label=\"NV{} ({} down)\", penwidth={:.1f}, "
                         "color=red, fontcolor=red];\n",
                         gpu,
                         links->to_switch,
                         links->down.size(),
                         width);
    }
    return out;
}

// Which GPUs NVLink joins, directly or through other GPUs: one number per group.
std::map<int, int> nvlink_groups(const model::Topology& topology,
                                 const std::vector<model::Gpu>& gpus) {
    std::map<int, int> group;
    for (const auto& gpu : gpus) {
        group[gpu.index] = gpu.index;
    }
    for (bool merged = true; merged;) {
        merged = false;
        for (const auto& a : gpus) {
            for (const auto& b : gpus) {
                const auto label = topology.label(a.index, b.index);
                if (a.index != b.index && label && label->is_nvlink() &&
                    group[a.index] != group[b.index]) {
                    group[a.index] = group[b.index] = std::min(group[a.index], group[b.index]);
                    merged = true;
                }
            }
        }
    }
    return group;
}

// A PCIe path the NUMA boxes already say: NODE within a box, SYS between two boxes.
bool implied_by_boxes(const model::LinkLabel& label, const model::Gpu& a, const model::Gpu& b) {
    if (!a.numa_node || !b.numa_node) {
        return false;
    }
    const bool same_box = *a.numa_node == *b.numa_node;
    return (label.kind == model::LinkKind::node && same_box) ||
           (label.kind == model::LinkKind::sys && !same_box);
}

struct PairDrawing {
    const ExportFacts& facts;
    const model::Topology& topology;
    std::set<int> on_fabric;
    std::map<int, int> groups;
    int widest = 1;
    bool all_paths = false;
};

// Whether the pair needs a line: not where the fabric node or NVLink already joins the two
// (NVLink carries their traffic) or where the NUMA boxes say the PCIe class, unless asked.
bool needs_line(const PairDrawing& d,
                const model::Gpu& a,
                const model::Gpu& b,
                std::set<Mark>& used) {
    const auto label = d.topology.label(a.index, b.index);
    const bool nvlink = label && label->is_nvlink();
    if (nvlink) {
        return !(d.on_fabric.contains(a.index) && d.on_fabric.contains(b.index));
    }
    if (d.all_paths || !label) {
        return true;
    }
    if (d.groups.at(a.index) == d.groups.at(b.index)) {
        return false;
    }
    if (implied_by_boxes(*label, a, b)) {
        used.insert(Mark::implied);
        return false;
    }
    return true;
}

std::string pair_edge(const PairDrawing& d,
                      const model::Gpu& ga,
                      const model::Gpu& gb,
                      std::set<Mark>& used) {
    const int a = ga.index;
    const int b = gb.index;
    const auto label = d.topology.label(a, b);
    const bool nvlink = label && label->is_nvlink();
    const std::string token = label ? label->to_token() : "unknown";
    const PairFault fault = pair_fault(d.facts, a, b, used);
    if (fault.words.empty() && !needs_line(d, ga, gb, used)) {
        return "";
    }
    const bool through_fabric = nvlink && d.on_fabric.contains(a) && d.on_fabric.contains(b);
    used.insert(nvlink ? Mark::nvlink : Mark::pcie);
    std::string style = nvlink
                            ? fmt::format("penwidth={:.1f}", 1.0 + 4.0 * label->nvlinks / d.widest)
                            : std::string("style=dashed");
    if (fault.words.empty()) {
        return fmt::format("  gpu{} -- gpu{} [label=\"{}\", {}];\n",
                           a,
                           b,
                           token,
                           nvlink ? style : style + ", color=gray");
    }
    // A faulty pair on the fabric is drawn without pulling the layout (constraint=false).
    return fmt::format("  gpu{} -- gpu{} [label=\"{} {}\", {}, color={}, fontcolor={}{}];\n",
                       a,
                       b,
                       token,
                       dot_escape(util::join(fault.words, ", ")),
                       style,
                       fault.color,
                       fault.color,
                       through_fabric ? ", constraint=false" : "");
}

std::string pair_edges(PairDrawing& d, const std::vector<model::Gpu>& gpus, std::set<Mark>& used) {
    for (const auto& a : gpus) {
        for (const auto& b : gpus) {
            if (a.index != b.index) {
                d.widest = std::max(d.widest, nvlinks_between(d.topology, a.index, b.index));
            }
        }
    }
    std::string out;
    for (std::size_t i = 0; i < gpus.size(); ++i) {
        for (std::size_t j = i + 1; j < gpus.size(); ++j) {
            out += pair_edge(d, gpus[i], gpus[j], used);
        }
    }
    return out;
}

std::string legend(const std::set<Mark>& used) {
    if (used.empty()) {
        return "";
    }
    std::string rows;
    for (Mark mark : used) {
        rows += fmt::format("<tr><td align=\"left\">{}</td></tr>", legend_texts().at(mark));
    }
    return fmt::format(
        "  subgraph cluster_legend {{\n    label=\"legend\";\n    legend [shape=plaintext, "
        "label=<<table border=\"0\" cellborder=\"0\" cellspacing=\"2\">{}</table>>];\n  }}\n",
        rows);
}

// The node's state (the assessment's) and why.
std::string title(const ExportFacts& facts) {
    const auto& node = facts.assessment.node;
    std::string_view words = "peergate: P2P vetoed";
    if (node.state == policy::doctor::NodeState::p2p_allowed) {
        words = "peergate: P2P allowed";
    } else if (node.state == policy::doctor::NodeState::unusable) {
        words = "peergate: node unusable";
    }
    return node.code.empty() ? std::string(words) : fmt::format("{} ({})", words, node.code);
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
    std::set<Mark> used;
    std::string nic_edges;
    out += clusters(members(facts, gpus, nic_edges, used));
    if (const model::Topology* topology = facts.doctor.discovery.described()) {
        PairDrawing drawing{.facts = facts,
                            .topology = *topology,
                            .on_fabric = fabric_gpus(facts, gpus),
                            .groups = nvlink_groups(*topology, gpus),
                            .all_paths = facts.run.dot_all_paths};
        if (drawing.on_fabric.size() >= 2) {
            used.insert(Mark::nvswitch);
            out += fabric_lines(facts, drawing.on_fabric);
        } else {
            drawing.on_fabric.clear();
        }
        out += pair_edges(drawing, gpus, used);
    }
    return out + nic_edges + legend(used) + "}\n";
}

}  // namespace peergate::report::exports
