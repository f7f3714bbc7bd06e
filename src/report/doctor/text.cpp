// SPDX-License-Identifier: Apache-2.0
#include "report/doctor/text.hpp"

#include "report/doctor/gpu_modes.hpp"
#include "report/doctor/links_text.hpp"
#include "report/topology/text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace peergate::report::doctor {

namespace {

// What the layers said about a pair, as one text row; pairs that read alike share a row.
std::string pair_answers(const policy::doctor::PairLayers& pair) {
    std::string nvml;
    for (const auto& token : pair.nvml) {
        nvml += fmt::format("{:<4}", token.empty() ? "?" : token);
    }
    const char* cuda = !pair.cuda_can_access_peer ? "?" : *pair.cuda_can_access_peer ? "yes" : "no";
    std::string out =
        fmt::format("{:<5} {}{:<4}", pair.label.empty() ? "?" : pair.label, nvml, cuda);
    if (!pair.probe.empty()) {
        out += fmt::format(" probe {:<9} {:<6}", pair.probe, pair.probe_path);
    }
    // Each path's verdict where more than copies were probed: "copies pass, SM stores fail"
    // must be visible on the pair's own row.
    for (const auto& v :
         pair.probe_paths.size() > 1 ? pair.probe_paths : std::vector<model::ProbePathVerdict>{}) {
        out += fmt::format(" {}:{}", model::to_string(v.path), model::to_string(v.verdict));
    }
    // ACS matters only between GPUs below a shared port.
    if (!pair.acs.empty() && pair.acs != "not_shared") {
        out += fmt::format(" acs {:<8}", pair.acs);
    }
    return out;
}

// The pairs of one row: "0-1" where both directions read alike, "0->1" where only one does.
std::string pair_list(const std::vector<std::pair<int, int>>& pairs) {
    constexpr std::size_t kShown = 8;
    std::vector<std::string> names;
    for (const auto& [src, dst] : pairs) {
        const bool both = std::find(pairs.begin(), pairs.end(), std::pair(dst, src)) != pairs.end();
        if (!both) {
            names.push_back(fmt::format("{}->{}", src, dst));
        } else if (src < dst) {
            names.push_back(fmt::format("{}-{}", src, dst));
        }
    }
    std::string out;
    for (std::size_t i = 0; i < names.size() && i < kShown; ++i) {
        out += (i == 0 ? "" : " ") + names[i];
    }
    return names.size() > kShown ? fmt::format("{} and {} more", out, names.size() - kShown) : out;
}

// The text's words for a pair's state (policy/assess) and where its probe verdict came from.
std::string_view state_words(policy::assess::PairState state) {
    using enum policy::assess::PairState;
    switch (state) {
        case nvlink:
            return "NVLink";
        case pcie_proven:
            return "PCIe, probed intact";
        case pcie_unverified:
            return "PCIe, no data moved";
        case staged_only:
            return "staged through host memory";
        case slower_than_staged:
            return "P2P slower than staged";
        case probe_error:
            return "probe error";
        case data_lost:
            return "DATA LOST";
    }
    return "DATA LOST";
}

std::string pair_state_text(const policy::assess::Assessment& assessment, int src, int dst) {
    const auto* pair = assessment.pair(src, dst);
    if (pair == nullptr) {
        return "";
    }
    return fmt::format(" => {}{}",
                       state_words(pair->state),
                       pair->probe == policy::assess::ProbeSource::cached ? " (cached probe)" : "");
}

std::string pairs_to_text(const policy::doctor::DoctorInput& input,
                          const policy::assess::Assessment& assessment) {
    if (input.pairs.empty()) {
        return "";
    }
    std::vector<std::pair<std::string, std::vector<std::pair<int, int>>>> rows;
    for (const auto& pair : input.pairs) {
        const auto answers = pair_answers(pair) + pair_state_text(assessment, pair.src, pair.dst);
        auto row = std::find_if(
            rows.begin(), rows.end(), [&](const auto& r) { return r.first == answers; });
        if (row == rows.end()) {
            row = rows.insert(rows.end(), {answers, {}});
        }
        row->second.emplace_back(pair.src, pair.dst);
    }
    std::string out = fmt::format(
        "\nPeer access (topology; NVML P2P status read write nvlink atomics prop; CUDA "
        "can-access-peer{}):\n",
        input.probe ? "; the probe's verdict and copy path" : "");
    for (const auto& [answers, pairs] : rows) {
        out += fmt::format("  {}  GPUs {}\n", answers, pair_list(pairs));
    }
    for (const auto& note : input.layer_notes) {
        out += "  note: " + note + "\n";
    }
    return out;
}

// ", NVIDIA open kernel module 580.95.05, Linux 6.8.0-49-generic", where they were read.
std::string kernel_identity(const model::HostFacts& host) {
    std::string out;
    if (host.nvidia_module) {
        out += fmt::format(", NVIDIA {} kernel module {}",
                           model::to_string(host.nvidia_module->flavour),
                           host.nvidia_module->version);
    }
    return host.kernel_release.empty() ? out : out + ", Linux " + host.kernel_release;
}

// The node's state and the host's silent-drop risk (policy/assess), in words.
std::string node_text(const policy::assess::Assessment& assessment) {
    const auto& node = assessment.node;
    std::string_view state = "P2P vetoed (GPU jobs start with P2P off)";
    if (node.state == policy::doctor::NodeState::p2p_allowed) {
        state = "P2P allowed";
    } else if (node.state == policy::doctor::NodeState::unusable) {
        state = "UNUSABLE: no CUDA program can start";
    }
    const auto risk = assessment.host.silent_drop.risk;
    return fmt::format("Node: {}{}\nSilent drops of PCIe peer copies: {}\n",
                       state,
                       node.code.empty() ? "" : fmt::format(" ({})", node.code),
                       risk == model::SilentDropRisk::present  ? "possible on this host"
                       : risk == model::SilentDropRisk::absent ? "not expected on this host"
                                                               : "cannot be ruled out (unknown)");
}

}  // namespace

std::string doctor_to_text(const policy::doctor::DoctorInput& input,
                           const policy::doctor::DoctorReport& report,
                           const policy::assess::Assessment& assessment,
                           bool color) {
    std::string out = "peergate doctor\n\nRuntime:\n";
    for (const auto& part : input.parts) {
        out += fmt::format(
            "  {:<22} {}  {}\n", part.what, part.found ? "found  " : "missing", part.detail);
    }
    out += fmt::format("\nHost: IOMMU {} ({}), {}{}\n",
                       model::to_string(input.host.iommu),
                       input.host.iommu_detail,
                       !input.host.hypervisor   ? "hypervisor unknown"
                       : *input.host.hypervisor ? "virtual machine"
                                                : "bare metal",
                       kernel_identity(input.host));
    out += fmt::format(
        "Kernel log: {} ({} event groups)\n", input.kernel_log_source, input.kernel_events.size());
    if (input.discovery.topology || !input.discovery.attempts.empty()) {
        out += "\nTopology:\n" + report::topology::topology_to_text(
                                     input.discovery, report::topology::TextStyle{.color = color});
    }
    out += pairs_to_text(input, assessment);
    out += links_to_text(input);
    out += fmt::format("\nVerdict: {}\n", to_string(report.verdict)) + node_text(assessment);
    return out + findings_to_text(report.findings);
}

std::string findings_to_text(const std::vector<model::Finding>& findings) {
    std::string out;
    for (const auto& finding : findings) {
        out += fmt::format(
            "\n[{}] {}: {}\n", model::to_string(finding.severity), finding.id(), finding.message);
        if (!finding.remedy.empty()) {
            out += "  remedy: " + finding.remedy + "\n";
        }
    }
    return out;
}

}  // namespace peergate::report::doctor
