// SPDX-License-Identifier: Apache-2.0
// What `doctor --probe` concludes from the data it moved and compared (GATE-SPEC.md §6). Pure.
#pragma once

#include "model/finding.hpp"
#include "model/probe_result.hpp"

#include <utility>
#include <vector>

namespace peergate::policy {

// probe_data_lost (error: the pairs and modes, the probe's remedy), probe_inconclusive
// (warning: why it could not decide) or probe_intact (info).
model::Finding probe_finding(const model::ProbeResult& result);

// Whether the probe passed and found every one of `pairs` (unordered) intact both ways:
// then a fabric the capability queries cannot vouch for has shown it carries data, as far
// as this load goes.
bool probe_vouches_for(const model::ProbeResult& result,
                       const std::vector<std::pair<int, int>>& pairs);

}  // namespace peergate::policy
