// SPDX-License-Identifier: Apache-2.0
// The peergate.nccl_log/v1 keys on NCCL's own checks: "diagnostics" (one object per edge
// NCCL's P2P diagnostics named, with its result), "diagnostics_reports" (the report's lines
// that name no edge) and "ras" (docs/contracts.md).
#pragma once

#include "model/nccl_log.hpp"
#include "policy/nccl/analysis.hpp"

#include <nlohmann/json.hpp>

namespace peergate::report::nccl {

nlohmann::ordered_json diagnostics_to_json(const policy::nccl::NcclAnalysis& analysis);

nlohmann::ordered_json diagnostics_reports_to_json(const model::NcclLog& log);

nlohmann::ordered_json ras_to_json(const model::NcclLog& log);

}  // namespace peergate::report::nccl
