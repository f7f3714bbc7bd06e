// SPDX-License-Identifier: Apache-2.0
#include "report/exports/nfd.hpp"

#include "model/host_facts.hpp"
#include "policy/doctor/gpu_nic.hpp"
#include "report/exports/nfd_nvlink.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <ctime>
#include <utility>
#include <vector>

namespace peergate::report::exports {

namespace {

using Labels = std::vector<std::pair<std::string, std::string>>;

bool alphanumeric(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

std::string topology_kind(std::size_t gpus, const NfdNvlinks& nvlinks) {
    if (gpus == 1) {
        return "single-gpu";
    }
    return nvlinks.min_links > 0      ? "nvlink-all"
           : !nvlinks.islands.empty() ? "nvlink-partial"
                                      : "pcie";
}

// The probe evidence the gate acts on: this run's probe, else the verdict cache's for this boot.
std::string probe_outcome(const ExportFacts& facts) {
    const auto& outcome = facts.assessment.probe.outcome;
    return outcome ? std::string(model::to_string(*outcome)) : "untested";
}

void add_topology_labels(const ExportFacts& facts, Labels& labels) {
    const auto gpus = examined_gpus(facts);
    labels.emplace_back("gpu.count", std::to_string(gpus.size()));
    const model::Topology* topology = facts.doctor.discovery.described();
    if (topology == nullptr || gpus.empty()) {
        labels.emplace_back("topology", "unknown");
        return;
    }
    const NfdNvlinks nvlinks = nfd_nvlinks(*topology, gpus);
    labels.emplace_back("topology", topology_kind(gpus.size(), nvlinks));
    labels.emplace_back("nvlink.present", nvlinks.islands.empty() ? "false" : "true");
    // Islands of two GPUs or more: a GPU alone is none (issue 35: a PCIe node of 8 GPUs
    // counted 8). The largest names its GPUs; a list too long for a label value is left out.
    labels.emplace_back("nvlink.islands", std::to_string(nvlinks.islands.size()));
    const auto largest = nvlinks.largest();
    labels.emplace_back("nvlink.largest-island-size", std::to_string(largest.size()));
    if (const auto list = gpu_list_label(largest)) {
        labels.emplace_back("nvlink.largest-island-gpus", *list);
    }
    labels.emplace_back("nvlink.min-links", std::to_string(nvlinks.min_links));
}

// Where GPUDirect RDMA between the examined GPUs and the NICs below their PCIe switches goes:
// "redirect" (ACS sends some pair's traffic to the root complex), "unknown" (a port's ACS
// could not be read), "switch" (it stays in the switch), "none" (no GPU shares a switch
// with a NIC).
std::string gdr_path(const ExportFacts& facts) {
    const auto paths = policy::doctor::gpu_nic_paths(facts.doctor);
    const auto any = [&](policy::doctor::AcsPath::State state) {
        return std::any_of(paths.begin(), paths.end(), [&](const policy::doctor::GpuNicPath& path) {
            return path.path.state == state;
        });
    };
    if (any(policy::doctor::AcsPath::State::redirect)) {
        return "redirect";
    }
    if (any(policy::doctor::AcsPath::State::unknown)) {
        return "unknown";
    }
    return paths.empty() ? "none" : "switch";
}

// The node's one verdict (docs/export.md, "What the node's state means"): what a scheduler may
// send here, which p2p.status alone does not say (a node whose CUDA cannot start is vetoed).
void add_node_labels(const ExportFacts& facts, Labels& labels) {
    const auto verdict = node_verdict(facts);
    labels.emplace_back("node.state", std::string(to_string(verdict.state)));
    labels.emplace_back("node.usable", usable(verdict.state) ? "true" : "false");
    if (const auto code = label_value(verdict.code); !code.empty()) {
        labels.emplace_back("node.reason", code);
    }
}

void add_p2p_labels(const ExportFacts& facts, Labels& labels) {
    labels.emplace_back("p2p.status", facts.gate.p2p ? "ok" : "vetoed");
    labels.emplace_back("p2p.rule", label_value(facts.gate.rule));
    labels.emplace_back("p2p.integrity", probe_outcome(facts));
    labels.emplace_back("p2p.integrity-source",
                        label_value(policy::assess::id(facts.assessment.probe.source)));
    labels.emplace_back("p2p.silent-drop-risk",
                        std::string(policy::assess::id(facts.assessment.host.silent_drop.risk)));
    std::optional<double> slowest;
    for (const auto& layers : facts.doctor.pairs) {
        if (layers.p2p_gbps) {
            slowest = std::min(slowest.value_or(*layers.p2p_gbps), *layers.p2p_gbps);
        }
    }
    if (slowest) {
        // An integer, so that nodeAffinity's Gt and Lt (integers only) can compare it: MB/s,
        // 10^6 bytes per second as bench's GB/s are 10^9, to the nearest (issue 35).
        labels.emplace_back("p2p.min-bw-mbytes-per-second",
                            std::to_string(std::llround(*slowest * 1000.0)));
        // Deprecated, kept for one release: a decimal that Gt and Lt cannot use.
        labels.emplace_back("p2p.min-bw-gbps", fmt::format("{:.1f}", *slowest));
    }
    labels.emplace_back("iommu", std::string(model::to_string(facts.doctor.host.iommu)));
    labels.emplace_back("gdr.path", gdr_path(facts));
    labels.emplace_back("gdr.memory",
                        std::string(to_string(
                            policy::doctor::gdr_memory(facts.doctor.host, facts.doctor.dma_buf))));
}

void add_doctor_labels(const ExportFacts& facts, Labels& labels) {
    labels.emplace_back("doctor.verdict", std::string(to_string(facts.report.verdict)));
    int errors = 0;
    int warnings = 0;
    for (const auto& finding : facts.report.findings) {
        errors += finding.severity == model::Severity::error ? 1 : 0;
        warnings += finding.severity == model::Severity::warning ? 1 : 0;
    }
    labels.emplace_back("doctor.errors", std::to_string(errors));
    labels.emplace_back("doctor.warnings", std::to_string(warnings));
    // Opt-in (--nfd-timestamp): a value new at every run makes NFD update the Node object at
    // every run, on every node; the expiry directive already says how fresh the labels are.
    if (facts.run.nfd_timestamp) {
        labels.emplace_back("timestamp", std::to_string(facts.run.finished_unix));
    }
}

}  // namespace

std::string label_value(std::string_view text) {
    std::string kept;
    for (char c : text) {
        if (alphanumeric(c) || c == '-' || c == '_' || c == '.' || c == ' ') {
            kept += c;
        }
    }
    std::vector<std::string> words;
    for (auto word : util::split_whitespace(kept)) {
        words.emplace_back(word);
    }
    std::string out = util::join(words, "-").substr(0, 63);
    while (!out.empty() && !alphanumeric(out.back())) {
        out.pop_back();
    }
    const auto first = std::find_if(out.begin(), out.end(), alphanumeric);
    return std::string(first, out.end());
}

std::string rfc3339_utc(std::int64_t unix_seconds) {
    const auto seconds = static_cast<std::time_t>(unix_seconds);
    std::tm utc{};
    ::gmtime_r(&seconds, &utc);
    return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                       utc.tm_year + 1900,
                       utc.tm_mon + 1,
                       utc.tm_mday,
                       utc.tm_hour,
                       utc.tm_min,
                       utc.tm_sec);
}

std::string export_nfd(const ExportFacts& facts) {
    std::string out = fmt::format("# peergate {}: generated {}; rewritten atomically\n",
                                  facts.run.version,
                                  rfc3339_utc(facts.run.finished_unix));
    if (facts.run.expiry_seconds > 0) {
        out += "# +expiry-time=" + rfc3339_utc(facts.run.finished_unix + facts.run.expiry_seconds) +
               "\n";
    }
    Labels labels;
    add_node_labels(facts, labels);
    add_p2p_labels(facts, labels);
    add_topology_labels(facts, labels);
    add_doctor_labels(facts, labels);
    for (const auto& [key, value] : labels) {
        out += fmt::format("{}{}={}\n", kNfdNamespace, key, value);
    }
    return out;
}

}  // namespace peergate::report::exports
