// SPDX-License-Identifier: Apache-2.0
// The rules that turn an analysed NCCL log into findings; each rule is its own function.
#pragma once

#include "model/finding.hpp"
#include "model/nccl_log.hpp"
#include "model/topology.hpp"
#include "policy/nccl/analysis.hpp"

#include <map>
#include <vector>

namespace peergate::policy::nccl {

// Stable codes of the findings below.
inline constexpr model::FindingCode kNcclNvlinkUnused = model::FindingCode::nccl_nvlink_unused;
inline constexpr model::FindingCode kNcclTransportUnverified =
    model::FindingCode::nccl_transport_unverified;
inline constexpr model::FindingCode kNcclP2pDisabled =
    model::FindingCode::nccl_p2p_disabled_by_environment;
inline constexpr model::FindingCode kNcclP2pLevel =
    model::FindingCode::nccl_p2p_level_set_by_environment;
inline constexpr model::FindingCode kNcclSettingDiffers =
    model::FindingCode::nccl_setting_differs_between_ranks;
inline constexpr model::FindingCode kNcclGraphWorse =
    model::FindingCode::nccl_graph_worse_than_topology;
inline constexpr model::FindingCode kNcclNetWithoutGdr = model::FindingCode::nccl_net_without_gdr;
inline constexpr model::FindingCode kNcclInitIncomplete = model::FindingCode::nccl_init_incomplete;
inline constexpr model::FindingCode kNcclNoConnections =
    model::FindingCode::nccl_no_connection_lines;
inline constexpr model::FindingCode kNcclLinesSkipped = model::FindingCode::nccl_lines_skipped;
inline constexpr model::FindingCode kNcclLogCapped = model::FindingCode::nccl_log_capped;

// The findings on what the input let the reader see: no connection lines, lines skipped,
// records dropped at the parser's caps (coverage.cpp).
void coverage_rules(const model::NcclLog& log, std::vector<model::Finding>& out);

// All findings, errors first, then warnings, then info.
std::vector<model::Finding> nccl_findings(const model::NcclLog& log,
                                          const NcclAnalysis& analysis,
                                          const std::map<int, NcclRankPlace>& places,
                                          const model::Topology* topology);

}  // namespace peergate::policy::nccl
