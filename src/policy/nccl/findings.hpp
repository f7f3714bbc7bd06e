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
inline constexpr const char* kNcclNvlinkUnused = "nccl_nvlink_unused";
inline constexpr const char* kNcclTransportUnverified = "nccl_transport_unverified";
inline constexpr const char* kNcclP2pDisabled = "nccl_p2p_disabled_by_environment";
inline constexpr const char* kNcclP2pLevel = "nccl_p2p_level_set_by_environment";
inline constexpr const char* kNcclSettingDiffers = "nccl_setting_differs_between_ranks";
inline constexpr const char* kNcclGraphWorse = "nccl_graph_worse_than_topology";
inline constexpr const char* kNcclNetWithoutGdr = "nccl_net_without_gdr";
inline constexpr const char* kNcclInitIncomplete = "nccl_init_incomplete";
inline constexpr const char* kNcclNoConnections = "nccl_no_connection_lines";
inline constexpr const char* kNcclLinesSkipped = "nccl_lines_skipped";
inline constexpr const char* kNcclLogCapped = "nccl_log_capped";

// The findings on what the input let the reader see: no connection lines, lines skipped,
// records dropped at the parser's caps (coverage.cpp).
void coverage_rules(const model::NcclLog& log, std::vector<model::Finding>& out);

// All findings, errors first, then warnings, then info.
std::vector<model::Finding> nccl_findings(const model::NcclLog& log,
                                          const NcclAnalysis& analysis,
                                          const std::map<int, NcclRankPlace>& places,
                                          const model::Topology* topology);

}  // namespace peergate::policy::nccl
