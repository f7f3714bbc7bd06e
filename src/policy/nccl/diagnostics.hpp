// SPDX-License-Identifier: Apache-2.0
// What NCCL's own checks in a log mean: each directed pair NCCL 2.31's P2P diagnostics
// tested, with its result, and the findings (a failed edge, RAS reports of dead, missing or
// unresponsive processes). NCCL's diagnostics never veto a pair: an edge that failed is
// still used by NCCL's P2P transport, so the remedy is ours to say. Pure.
#pragma once

#include "model/finding.hpp"
#include "model/nccl_log.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::policy::nccl {

inline constexpr model::FindingCode kNcclDiagEdgeFailed = model::FindingCode::nccl_diag_edge_failed;
inline constexpr model::FindingCode kNcclRasProcessDead = model::FindingCode::nccl_ras_process_dead;
inline constexpr model::FindingCode kNcclRasProcessUnresponsive =
    model::FindingCode::nccl_ras_process_unresponsive;
inline constexpr model::FindingCode kNcclRasRanksMissing =
    model::FindingCode::nccl_ras_ranks_missing;
inline constexpr model::FindingCode kNcclRasCheckIssue = model::FindingCode::nccl_ras_check_issue;

// pass: the edge was tested and the report accounts for every failure it counts, none on
// this edge; fail: NCCL named the edge failed; skipped: NCCL routes the pair through
// another GPU and did not test it; unknown: tested, but the report is missing or counts
// failures it does not name.
enum class NcclDiagResult { pass, fail, skipped, unknown };

// "pass", "fail", "skipped", "unknown".
std::string_view to_string(NcclDiagResult result);

// One directed pair of ranks as NCCL's diagnostics saw it.
struct NcclDiagEdge {
    int src_rank = 0;
    int dst_rank = 0;
    std::string host;  // the source rank's host where an INFO line names it, else the report's
    std::optional<int> src_cuda_dev;
    std::optional<int> dst_cuda_dev;
    std::optional<int> src_nvml_dev;  // = nvidia-smi index
    std::optional<int> dst_nvml_dev;
    std::string path;    // NCCL's path type: "NVL", "PIX"
    std::string handle;  // how the peer memory was mapped: "CUMEM_POSIX_FD"
    NcclDiagResult result = NcclDiagResult::unknown;
    std::string check;  // fail: NCCL's word for it ("write mismatch"); else ""
    std::string text;   // NCCL's words that decided the result

    friend bool operator==(const NcclDiagEdge&, const NcclDiagEdge&) = default;
};

// Every edge the diagnostics lines name, by source rank, then destination rank.
std::vector<NcclDiagEdge> diagnostic_edges(const model::NcclLog& log);

// The findings on those edges and on the RAS lines.
void diagnostic_rules(const model::NcclLog& log,
                      const std::vector<NcclDiagEdge>& edges,
                      std::vector<model::Finding>& out);

}  // namespace peergate::policy::nccl
