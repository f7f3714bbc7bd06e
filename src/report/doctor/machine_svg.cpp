// SPDX-License-Identifier: Apache-2.0
#include "report/doctor/machine_svg.hpp"

#include "report/doctor/html.hpp"
#include "report/doctor/machine_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

namespace peergate::report::doctor {

namespace {

using policy::doctor::DoctorInput;
using policy::doctor::DoctorReport;

std::string text(double x, double y, std::string_view css, std::string_view words) {
    return fmt::format(
        "<text x=\"{:.0f}\" y=\"{:.0f}\" class=\"{}\">{}</text>\n", x, y, css, html_escape(words));
}

std::string rect(const Box& b, std::string_view css) {
    return fmt::format(
        "<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{:.0f}\" height=\"{:.0f}\" "
        "rx=\"4\" class=\"{}\"/>\n",
        b.x,
        b.y,
        b.w,
        b.h,
        css);
}

std::string line(double x1, double y1, double x2, double y2, std::string_view css) {
    return fmt::format(
        "<line x1=\"{:.0f}\" y1=\"{:.0f}\" x2=\"{:.0f}\" y2=\"{:.0f}\" class=\"{}\"/>\n",
        x1,
        y1,
        x2,
        y2,
        css);
}

// At most `most` bytes, never cutting a UTF-8 sequence.
std::string clipped(std::string_view words, std::size_t most) {
    if (words.size() <= most) {
        return std::string(words);
    }
    std::size_t end = most - 1;
    while (end > 0 && (static_cast<unsigned char>(words[end]) & 0xC0U) == 0x80U) {
        --end;
    }
    return std::string(words.substr(0, end)) + "…";
}

// What the findings say of one GPU, as a short mark and the worst severity.
struct GpuMark {
    std::string words;
    bool error = false;
};

std::map<int, GpuMark> gpu_marks(const DoctorReport& report) {
    std::map<int, GpuMark> marks;
    for (const auto& f : report.findings) {
        if (!f.has(model::kMarksGpu) || f.severity == model::Severity::info) {
            continue;
        }
        const std::string label(model::meta(f.code).label);
        for (int gpu : f.gpus) {
            auto& mark = marks[gpu];
            if (mark.words.find(label) == std::string::npos) {
                mark.words += (mark.words.empty() ? "" : ", ") + label;
            }
            mark.error = mark.error || f.severity == model::Severity::error;
        }
    }
    return marks;
}

std::string leaf_svg(const LeafBox& leaf, const std::map<int, GpuMark>& marks) {
    const auto mark = leaf.gpu ? marks.find(leaf.index) : marks.end();
    const bool marked = mark != marks.end();
    std::string css = leaf.gpu ? "gpu" : "nic";
    if (marked) {
        css += mark->second.error ? " bad" : " warn";
    }
    const auto& b = leaf.box;
    std::string out = rect(b, css);
    out += text(b.x + 8, b.y + 18, "t", leaf.title);
    out += text(b.x + 8, b.y + 34, "d", clipped(leaf.detail, leaf.gpu ? 24 : 14));
    out += text(b.x + 8, b.y + 49, "d", leaf.bus);
    if (marked) {
        out += text(b.x + 8,
                    b.y + 62,
                    mark->second.error ? "m bad" : "m warn",
                    clipped(mark->second.words, 28));
    }
    return out;
}

// Over an NVSwitch: one edge per GPU to the fabric, labelled with the links up.
std::string fabric_edges(const DoctorInput& input, const MachineLayout& layout) {
    std::string out = rect(*layout.fabric, "fabric") +
                      text(layout.fabric->x + 10, layout.fabric->y + 19, "t", "NVSwitch fabric");
    for (const auto& links : input.links) {
        const LeafBox* leaf = gpu_leaf(layout, links.gpu);
        if (leaf == nullptr || links.to_switch == 0) {
            continue;
        }
        const bool down = !links.down.empty();
        const double x = leaf->box.cx();
        out += line(x, leaf->box.y, x, layout.fabric->bottom(), down ? "nv down" : "nv");
        const std::string label = down
                                      ? fmt::format("NV{} ({} down)", links.up(), links.down.size())
                                      : fmt::format("NV{}", links.up());
        out += text(x + 4, layout.fabric->bottom() + 14, down ? "el bad" : "el", label);
    }
    return out;
}

// Without a switch: an arc over the GPUs for each NVLinked pair, thicker with more links.
std::string nvlink_arcs(const model::Topology& t, const MachineLayout& layout) {
    std::string out;
    for (std::size_t p = 0; p < t.size(); ++p) {
        for (std::size_t q = p + 1; q < t.size(); ++q) {
            const auto& label = t.matrix[p][q];
            const LeafBox* a = gpu_leaf(layout, t.gpus[p].index);
            const LeafBox* b = gpu_leaf(layout, t.gpus[q].index);
            if (!label.is_nvlink() || a == nullptr || b == nullptr) {
                continue;
            }
            const double rise = std::min(26.0 + std::abs(b->box.cx() - a->box.cx()) / 8, 56.0);
            const double top = std::max(a->box.y - rise, layout.arc_top);
            out += fmt::format(
                "<path d=\"M{:.0f} {:.0f} Q{:.0f} {:.0f} {:.0f} {:.0f}\" class=\"nv\" "
                "style=\"stroke-width:{:.1f}\"/>\n",
                a->box.cx(),
                a->box.y,
                (a->box.cx() + b->box.cx()) / 2,
                top,
                b->box.cx(),
                b->box.y,
                1.0 + std::min(label.nvlinks, 18) / 3.0);
            out += text((a->box.cx() + b->box.cx()) / 2 - 12,
                        (top + a->box.y) / 2 + 2,
                        "el",
                        label.to_token());
        }
    }
    return out;
}

std::string port_svg(const PortBox& port, const MachineLayout& layout) {
    std::string out;
    if (port.parent) {
        for (const auto& up : layout.ports) {
            if (up.address == *port.parent) {
                out += line(port.box.cx(), port.box.bottom(), up.box.cx(), up.box.y, "pcie");
            }
        }
    } else if (layout.root) {
        out += line(port.box.cx(), port.box.bottom(), port.box.cx(), layout.root->y, "pcie");
    }
    out += rect(port.box, port.acs_redirect ? "port bad" : "port");
    std::string bus = port.address.to_sysfs();
    bus = bus.rfind("0000:", 0) == 0 ? bus.substr(5) : bus;
    out += text(port.box.x + 6,
                port.box.y + 17,
                port.acs_redirect ? "d bad" : "d",
                port.acs_redirect ? bus + " ACS redirect" : bus);
    return out;
}

std::string pcie_tree(const MachineLayout& layout, const model::HostFacts& host) {
    std::string out;
    for (const auto& leaf : layout.leaves) {
        if (!leaf.port && layout.root) {
            out += line(
                leaf.box.cx() - 6, leaf.box.bottom(), leaf.box.cx() - 6, layout.root->y, "unread");
        }
        for (const auto& port : layout.ports) {
            if (leaf.port && port.address == *leaf.port) {
                out += line(leaf.box.cx(), leaf.box.bottom(), port.box.cx(), port.box.y, "pcie");
            }
        }
    }
    for (const auto& port : layout.ports) {
        out += port_svg(port, layout);
    }
    if (layout.root) {
        const bool translating = host.iommu == model::IommuMode::translating;
        out += rect(*layout.root, translating ? "root bad" : "root");
        out += text(layout.root->x + 10,
                    layout.root->y + 16,
                    translating ? "t bad" : "t",
                    fmt::format("Root complex · IOMMU {}{}{}",
                                model::to_string(host.iommu),
                                translating ? ": PCIe peer traffic goes through it" : "",
                                layout.ports.empty() ? " (PCIe ports not read)" : ""));
    }
    return out;
}

// Each problem pair: a path down from both GPUs into the band under the groups.
std::string problem_paths(const std::vector<PairProblem>& problems, const MachineLayout& layout) {
    std::string out;
    for (std::size_t k = 0; k < problems.size() && k < 12; ++k) {
        const auto& problem = problems[k];
        const LeafBox* a = gpu_leaf(layout, problem.a);
        const LeafBox* b = gpu_leaf(layout, problem.b);
        if (a == nullptr || b == nullptr) {
            continue;
        }
        const double y = layout.band_top + 10 + 16 * static_cast<double>(k);
        const char* css = problem.severe ? "problem bad" : "problem warn";
        out += fmt::format(
            "<path d=\"M{0:.0f} {1:.0f} L{0:.0f} {2:.0f} L{3:.0f} {2:.0f} "
            "L{3:.0f} {4:.0f}\" class=\"{5}\"/>\n",
            a->box.cx() + 6,
            a->box.bottom(),
            y,
            b->box.cx() + 6,
            b->box.bottom(),
            css);
        out += text(std::max(a->box.cx(), b->box.cx()) + 14,
                    y + 4,
                    problem.severe ? "el bad" : "el warn",
                    fmt::format("GPU{} ↔ GPU{}: {}", problem.a, problem.b, problem.what));
    }
    return out;
}

// The host's IOMMU, what it runs on, and its silent-drop risk as the assessment gives it.
std::string host_line(const DoctorInput& input,
                      const policy::assess::Assessment& assessment,
                      const MachineLayout& layout) {
    const auto& host = input.host;
    const auto risk = assessment.host.silent_drop.risk;
    const std::string words = fmt::format(
        "Host: IOMMU {} · {}{}",
        model::to_string(host.iommu),
        !host.hypervisor   ? "hypervisor unknown"
        : *host.hypervisor ? "virtual machine"
                           : "bare metal",
        risk == model::SilentDropRisk::present ? " · PCIe peer copies can be dropped silently here"
        : risk == model::SilentDropRisk::unknown
            ? " · silent drops of PCIe peer copies cannot be ruled out"
            : "");
    const char* css = risk == model::SilentDropRisk::present   ? "t bad"
                      : risk == model::SilentDropRisk::unknown ? "t warn"
                                                               : "t";
    return text(layout.host.x, layout.host.y + 16, css, words);
}

// The drawing's words for the states it marks; nullopt for the others.
std::optional<PairProblem> problem_of(policy::assess::PairState state, int a, int b) {
    using enum policy::assess::PairState;
    switch (state) {
        case data_lost:
            return PairProblem{a, b, "data lost", true};
        case probe_error:
            return PairProblem{a, b, "probe error", false};
        case slower_than_staged:
            return PairProblem{a, b, "slower than staged", false};
        default:
            return std::nullopt;
    }
}

}  // namespace

std::vector<PairProblem> pair_problems(const policy::assess::Assessment& assessment) {
    std::vector<PairProblem> out;
    for (const auto& pair : assessment.pairs) {
        if (pair.src > pair.dst && assessment.pair(pair.dst, pair.src) != nullptr) {
            continue;  // the pair (dst, src) stands for both directions
        }
        const auto [a, b] = std::minmax(pair.src, pair.dst);
        if (const auto worst = assessment.worst_of(a, b)) {
            if (auto problem = problem_of(*worst, a, b)) {
                out.push_back(std::move(*problem));
            }
        }
    }
    std::sort(out.begin(), out.end(), [](const PairProblem& x, const PairProblem& y) {
        return std::pair(x.a, x.b) < std::pair(y.a, y.b);
    });
    return out;
}

std::string machine_svg(const DoctorInput& input,
                        const DoctorReport& report,
                        const policy::assess::Assessment& assessment) {
    const auto* topology = input.discovery.described();
    const auto problems = pair_problems(assessment);
    const auto layout = lay_out_machine(input, static_cast<int>(problems.size()));
    if (topology == nullptr || layout.leaves.empty()) {
        return "";
    }
    std::string out = fmt::format(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"machine\" viewBox=\"0 0 {:.0f} {:.0f}\" "
        "width=\"{:.0f}\" role=\"img\" aria-label=\"drawing of the machine\">\n",
        layout.width,
        layout.height,
        layout.width);
    out += host_line(input, assessment, layout);
    out += layout.fabric ? fabric_edges(input, layout) : nvlink_arcs(*topology, layout);
    for (const auto& group : layout.groups) {
        out += rect(group.box, "group") +
               text(group.box.x + 8, group.box.bottom() - 7, "d", group.title);
    }
    const auto marks = gpu_marks(report);
    for (const auto& leaf : layout.leaves) {
        out += leaf_svg(leaf, marks);
    }
    out += problem_paths(problems, layout);
    out += pcie_tree(layout, input.host);
    return out + "</svg>\n";
}

}  // namespace peergate::report::doctor
