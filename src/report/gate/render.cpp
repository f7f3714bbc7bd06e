// SPDX-License-Identifier: Apache-2.0
#include "report/gate/render.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <vector>

namespace peergate::report::gate {

namespace {

using policy::gate::GateDecision;

std::string one_line(std::string_view text) {
    std::string out(text);
    std::replace(out.begin(), out.end(), '\n', ' ');
    return out;
}

nlohmann::ordered_json why_json(const GateDecision& d) {
    nlohmann::ordered_json why{{"set", nlohmann::ordered_json::object()},
                               {"unset", nlohmann::ordered_json::object()},
                               {"kept", nlohmann::ordered_json::object()}};
    for (const auto& s : d.set) {
        why["set"][s.name] = s.reason;
    }
    for (const auto& r : d.unset) {
        why["unset"][r.name] = r.reason;
    }
    for (const auto& k : d.kept) {
        why["kept"][k.name] = k.reason;
    }
    return why;
}

std::string selection_text(const GateDecision& d) {
    // clang-format off
    static constexpr std::pair<std::string_view, std::string_view> kSources[] = {
        {"gpus", "--gpus"},
        {"all", "--gpus all"},
        {"cuda_visible_devices", "CUDA_VISIBLE_DEVICES, pinned to PCI_BUS_ID"},
        {"cuda_identity", "the GPUs the child's CUDA driver enumerates"},
        {"host", "every GPU on the host"},
    };
    // clang-format on
    std::string_view from = d.selection_source;
    for (const auto& [key, words] : kSources) {
        if (key == d.selection_source) {
            from = words;
        }
    }
    return fmt::format(
        "selection: GPUs {} ({})",
        d.selection.empty() ? std::string("none") : fmt::format("{}", fmt::join(d.selection, ", ")),
        from);
}

nlohmann::ordered_json text_or_null(const std::string& text) {
    return text.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(text);
}

// An unusable node in one line; the reason only where the P2P line above has not said it.
std::string node_line(const GateDecision& d) {
    if (d.node.usable) {
        return "";
    }
    return d.node.rule == d.rule
               ? fmt::format("node unusable: no CUDA program can start [rule {}]", d.node.rule)
               : fmt::format("node unusable: {} [rule {}]", one_line(d.node.reason), d.node.rule);
}

}  // namespace

nlohmann::ordered_json gate_to_json(const GateDecision& d) {
    nlohmann::ordered_json doc;
    doc["schema"] = "peergate.gate/v1";
    doc["selection"] = d.selection;
    doc["p2p"] = d.p2p;
    doc["veto"] = d.p2p ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(d.veto);
    doc["set"] = nlohmann::ordered_json::object();
    for (const auto& s : d.set) {
        doc["set"][s.name] = s.value;
    }
    doc["unset"] = nlohmann::ordered_json::array();
    for (const auto& r : d.unset) {
        doc["unset"].push_back(r.name);
    }
    doc["kept"] = nlohmann::ordered_json::object();
    for (const auto& k : d.kept) {
        doc["kept"][k.name] = k.value;
    }
    doc["warnings"] = d.warnings;
    doc["topology_source"] = std::string(model::to_string(d.topology_source));
    doc["iommu"] = std::string(model::to_string(d.iommu));
    doc["profile"] = std::string(to_string(d.profile));
    doc["rule"] = d.rule;
    doc["reason"] = d.reason;
    doc["selection_source"] = d.selection_source;
    doc["why"] = why_json(d);
    // Added after the fixed fields (docs/contracts.md): false only where no CUDA program can
    // start here, whatever rule decided P2P (`gate` then exits 3).
    doc["node_usable"] = d.node.usable;
    doc["node_rule"] = text_or_null(d.node.rule);
    doc["node_reason"] = text_or_null(d.node.reason);
    // Whether PEERGATE_TRUST_PROBE=1 would let the cached probe's passes allow P2P here.
    doc["trust_would_allow"] = d.trust_would_allow;
    return doc;
}

std::string gate_to_text(const GateDecision& d) {
    std::string out =
        fmt::format("P2P {}: {} [rule {}]\n", d.p2p ? "allowed" : "vetoed", d.reason, d.rule);
    if (!d.node.usable) {
        out += node_line(d) + "\n";
    }
    out += selection_text(d) + "\n";
    out += fmt::format("profile: {}; topology: {}; IOMMU: {}\n",
                       to_string(d.profile),
                       model::to_string(d.topology_source),
                       model::to_string(d.iommu));
    for (const auto& s : d.set) {
        out += fmt::format("set {}={}: {}\n", s.name, s.value, s.reason);
    }
    for (const auto& r : d.unset) {
        out += fmt::format("unset {}: {}\n", r.name, r.reason);
    }
    for (const auto& k : d.kept) {
        out += fmt::format("kept {}={}: {}\n", k.name, k.value, k.reason);
    }
    for (const auto& w : d.warnings) {
        out += fmt::format("warning: {}\n", w);
    }
    return out;
}

std::string shell_quote(std::string_view value) {
    std::string out = "'";
    for (const char c : value) {
        if (c == '\'') {
            out += "'\\''";
        } else {
            out += c;
        }
    }
    return out + "'";
}

std::string gate_to_shell(const GateDecision& d) {
    std::string out =
        fmt::format("# peergate: P2P {}: {}\n", d.p2p ? "allowed" : "vetoed", one_line(d.reason));
    if (!d.node.usable) {
        out += "# peergate: " + node_line(d) + "\n";
    }
    for (const auto& w : d.warnings) {
        out += fmt::format("# warning: {}\n", one_line(w));
    }
    for (const auto& r : d.unset) {
        out += fmt::format("unset {}\n", r.name);
    }
    for (const auto& s : d.set) {
        out += fmt::format("export {}={}\n", s.name, shell_quote(s.value));
    }
    return out;
}

std::string gate_to_log_line(const GateDecision& d) {
    std::string line = fmt::format("P2P {}: {}", d.p2p ? "allowed" : "vetoed", one_line(d.reason));
    if (!d.set.empty()) {
        std::vector<std::string> parts;
        for (const auto& s : d.set) {
            parts.push_back(s.name + "=" + s.value);
        }
        line += fmt::format("; set {}", fmt::join(parts, " "));
    }
    if (!d.unset.empty()) {
        std::vector<std::string> names;
        for (const auto& r : d.unset) {
            names.push_back(r.name);
        }
        line += fmt::format("; unset {}", fmt::join(names, " "));
    }
    if (!d.kept.empty()) {
        std::vector<std::string> parts;
        for (const auto& k : d.kept) {
            parts.push_back(k.name + "=" + k.value);
        }
        line += fmt::format("; kept {}", fmt::join(parts, " "));
    }
    return line;
}

}  // namespace peergate::report::gate
