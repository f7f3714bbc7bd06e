// SPDX-License-Identifier: Apache-2.0
#include "policy/nccl/diagnostics.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <array>
#include <map>
#include <set>
#include <utility>

namespace peergate::policy::nccl {

namespace {

using model::Finding;
using model::NcclDiagKind;
using model::NcclDiagLine;
using model::Severity;

constexpr std::size_t kMaxQuoted = 4;  // NCCL lines quoted in one RAS finding

// What the lines say about one edge, before the report decides it.
struct EdgeFacts {
    NcclDiagEdge edge;
    bool host_from_info = false;
    bool tested = false;
    bool skipped = false;
    bool failed = false;
    std::string first_text;  // of a tested or skipped line
};

// The report's summaries: whether one was seen and how many peer accesses they count as
// failed ("only 52/56": 4), so named failures can be checked against them.
struct Summaries {
    bool seen = false;
    std::uint64_t failed = 0;
    std::string text;
};

void take_fields(EdgeFacts& facts, const NcclDiagLine& line) {
    auto& edge = facts.edge;
    const bool info = line.text.starts_with("Diagnostics P2P");
    if (edge.host.empty() || (info && !facts.host_from_info)) {
        edge.host = line.host;  // an INFO line comes from the source rank's process
        facts.host_from_info = info;
    }
    edge.src_cuda_dev = edge.src_cuda_dev ? edge.src_cuda_dev : line.src_cuda_dev;
    edge.dst_cuda_dev = edge.dst_cuda_dev ? edge.dst_cuda_dev : line.dst_cuda_dev;
    edge.src_nvml_dev = edge.src_nvml_dev ? edge.src_nvml_dev : line.src_nvml_dev;
    edge.dst_nvml_dev = edge.dst_nvml_dev ? edge.dst_nvml_dev : line.dst_nvml_dev;
    edge.path = edge.path.empty() ? line.path : edge.path;
    edge.handle = edge.handle.empty() ? line.handle : edge.handle;
}

void take_line(EdgeFacts& facts, const NcclDiagLine& line) {
    take_fields(facts, line);
    if (line.kind == NcclDiagKind::failed) {
        // The report's line ("p2p: write mismatch ... expected= got=") says more than the
        // INFO line of a failed import: it wins where both are there.
        if (!facts.failed ||
            (line.text.starts_with("p2p:") && !facts.edge.text.starts_with("p2p:"))) {
            facts.edge.check = line.check;
            facts.edge.text = line.text;
        }
        facts.failed = true;
        return;
    }
    facts.tested = facts.tested || line.kind == NcclDiagKind::tested;
    facts.skipped = facts.skipped || line.kind == NcclDiagKind::skipped;
    if (facts.first_text.empty()) {
        facts.first_text = line.text;
    }
}

void take_summary(Summaries& summaries, const NcclDiagLine& line) {
    if (!line.tested || !line.passed || *line.passed > *line.tested) {
        return;
    }
    summaries.seen = true;
    summaries.failed += (*line.tested - *line.passed) * line.count;
    if (summaries.text.empty()) {
        summaries.text = line.text;
    }
}

void decide(EdgeFacts& facts, const Summaries& summaries, std::uint64_t named_failures) {
    auto& edge = facts.edge;
    if (facts.failed) {
        edge.result = NcclDiagResult::fail;
    } else if (!facts.tested) {
        edge.result = facts.skipped ? NcclDiagResult::skipped : NcclDiagResult::unknown;
        edge.text = facts.first_text;
    } else if (summaries.seen && named_failures >= summaries.failed) {
        edge.result = NcclDiagResult::pass;
        edge.text = summaries.text;
    } else {
        edge.result = NcclDiagResult::unknown;
        edge.text = facts.first_text;
    }
}

// "GPU 3" (the nvidia-smi index, NCCL's nvmlDev), else "cudaDev 3", else "GPU unknown".
std::string gpu_of(const std::optional<int>& nvml_dev, const std::optional<int>& cuda_dev) {
    if (nvml_dev) {
        return fmt::format("GPU {}", *nvml_dev);
    }
    return cuda_dev ? fmt::format("cudaDev {}", *cuda_dev) : std::string("GPU unknown");
}

// The highest NCCL_P2P_LEVEL that leaves `path` out of P2P ("LOC" for NVLink: P2P off).
std::string level_below(const std::string& path) {
    static constexpr std::array<const char*, 6> kLevels = {
        "LOC", "NVL", "PIX", "PXB", "PHB", "SYS"};
    const auto rank = model::nccl_path_rank(path);
    std::string below = "LOC";
    for (const char* level : kLevels) {
        if (rank && model::nccl_path_rank(level) < rank) {
            below = level;
        }
    }
    return below;
}

Finding edge_failed_finding(const NcclDiagEdge& edge) {
    std::vector<int> gpus;
    if (edge.src_nvml_dev && edge.dst_nvml_dev) {
        gpus = {*edge.src_nvml_dev, *edge.dst_nvml_dev};
    }
    const std::string path = edge.path.empty() ? std::string("an unknown path") : edge.path;
    return Finding{
        .code = kNcclDiagEdgeFailed,
        .severity = Severity::error,
        .gpus = gpus,
        .message = fmt::format(
            "NCCL's P2P diagnostics: rank {} ({}) -> rank {} ({}){} over {} failed ({}); NCCL "
            "does not veto the pair, so its P2P transport still moves data over it. NCCL: "
            "\"{}\"",
            edge.src_rank,
            gpu_of(edge.src_nvml_dev, edge.src_cuda_dev),
            edge.dst_rank,
            gpu_of(edge.dst_nvml_dev, edge.dst_cuda_dev),
            edge.host.empty() ? "" : " on " + edge.host,
            path,
            edge.check,
            edge.text),
        .remedy = fmt::format(
            "disable P2P for this pair before the job runs: NCCL_P2P_DISABLE=1, or "
            "NCCL_P2P_LEVEL={} (P2P only on paths closer than {}); `peergate gate --for nccl` "
            "sets it, and `peergate doctor --probe` looks for the cause (IOMMU, ACS, a VM's "
            "peer aperture)",
            level_below(edge.path),
            path)};
}

// NCCL's words of the first RAS lines of `kind`, quoted and joined.
std::string quoted(const std::vector<const model::NcclRasLine*>& lines) {
    std::vector<std::string> parts;
    for (const auto* line : lines) {
        if (parts.size() == kMaxQuoted) {
            parts.push_back(fmt::format("and {} more", lines.size() - kMaxQuoted));
            break;
        }
        parts.push_back(fmt::format("\"{}\"", line->text));
    }
    return fmt::format("{}", fmt::join(parts, "; "));
}

// The nodes and ranks the lines name, as " (10.0.0.2, rank 1)"; "" when they name none.
std::string named_in(const std::vector<const model::NcclRasLine*>& lines) {
    std::set<std::string> names;
    for (const auto* line : lines) {
        if (!line->node.empty()) {
            names.insert(line->node);
        }
        if (line->rank) {
            names.insert(fmt::format("rank {}", *line->rank));
        }
    }
    return names.empty() ? std::string() : fmt::format(" ({})", fmt::join(names, ", "));
}

struct RasRule {
    model::NcclRasKind kind;
    model::FindingCode code;
    const char* what;
    const char* remedy;
};

constexpr std::array<RasRule, 4> kRasRules = {{
    {model::NcclRasKind::dead,
     kNcclRasProcessDead,
     "reports a process dead",
     "the job lost a process: see why on its node (its exit, the kernel log's Xid lines, "
     "`peergate doctor`); RAS no longer contacts it, so restart the job without it"},
    {model::NcclRasKind::unresponsive,
     kNcclRasProcessUnresponsive,
     "lost contact with a process",
     "a process stalled or its network dropped: query `ncclras` again; RAS declares it dead "
     "after 60 s without contact"},
    {model::NcclRasKind::missing,
     kNcclRasRanksMissing,
     "has no data from some ranks",
     "a rank stopped answering (stopped, crashed or cut off): `ncclras` names its process "
     "and node; a repeated query that still lists it is not a transient"},
    {model::NcclRasKind::check_issue,
     kNcclRasCheckIssue,
     "diagnostics flag a check",
     "make the ranks agree on what the check names (GPU model, driver, NCCL_* variables) "
     "or clear the errors it counts (ECC, NVLinks down)"},
}};

}  // namespace

std::string_view to_string(NcclDiagResult result) {
    switch (result) {
        case NcclDiagResult::pass:
            return "pass";
        case NcclDiagResult::fail:
            return "fail";
        case NcclDiagResult::skipped:
            return "skipped";
        case NcclDiagResult::unknown:
            return "unknown";
    }
    return "unknown";
}

std::vector<NcclDiagEdge> diagnostic_edges(const model::NcclLog& log) {
    std::map<std::pair<int, int>, EdgeFacts> facts;
    Summaries summaries;
    for (const auto& line : log.diagnostics) {
        if (line.kind == NcclDiagKind::report) {
            take_summary(summaries, line);
        } else if (line.src_rank && line.dst_rank) {
            auto& edge = facts[{*line.src_rank, *line.dst_rank}];
            edge.edge.src_rank = *line.src_rank;
            edge.edge.dst_rank = *line.dst_rank;
            take_line(edge, line);
        }
    }
    std::uint64_t named_failures = 0;
    for (const auto& [key, edge] : facts) {
        named_failures += edge.failed ? 1U : 0U;
    }
    std::vector<NcclDiagEdge> out;
    out.reserve(facts.size());
    for (auto& [key, edge] : facts) {
        decide(edge, summaries, named_failures);
        out.push_back(std::move(edge.edge));
    }
    return out;
}

void diagnostic_rules(const model::NcclLog& log,
                      const std::vector<NcclDiagEdge>& edges,
                      std::vector<Finding>& out) {
    for (const auto& edge : edges) {
        if (edge.result == NcclDiagResult::fail) {
            out.push_back(edge_failed_finding(edge));
        }
    }
    for (const auto& rule : kRasRules) {
        std::vector<const model::NcclRasLine*> lines;
        for (const auto& line : log.ras) {
            if (line.kind == rule.kind) {
                lines.push_back(&line);
            }
        }
        if (lines.empty()) {
            continue;
        }
        out.push_back(Finding{.code = rule.code,
                              .severity = Severity::warning,
                              .message = fmt::format(
                                  "NCCL's RAS {}{}: {}", rule.what, named_in(lines), quoted(lines)),
                              .remedy = rule.remedy});
    }
}

}  // namespace peergate::policy::nccl
