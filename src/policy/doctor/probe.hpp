// SPDX-License-Identifier: Apache-2.0
// What `doctor --probe` concludes from the data it moved and compared (docs/gate-rules.md §6).
// Pure.
#pragma once

#include "model/finding.hpp"
#include "model/probe_result.hpp"

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace peergate::policy::doctor {

// probe_data_lost (error: the pairs and modes, the probe's remedy), probe_inconclusive
// (warning: why it could not decide) or probe_intact (info).
model::Finding probe_finding(const model::ProbeResult& result);

// The verdict cache's result from earlier on this boot, for a doctor run without --probe:
// cached_probe_data_lost (error) when an ordered pair of the GPUs examined (empty: all) lost
// data, else cached_probe_intact (info) when every such pair it lists came through intact;
// nothing when it tested none of them.
std::optional<model::Finding> cached_probe_finding(const model::ProbeResult& result,
                                                   const std::string& written_at,
                                                   const std::vector<int>& examined);

// Whether the probe passed and found every one of `pairs` (unordered) intact both ways:
// then a fabric the capability queries cannot vouch for has shown it carries data, as far
// as this load goes.
bool probe_vouches_for(const model::ProbeResult& result,
                       const std::vector<std::pair<int, int>>& pairs);

}  // namespace peergate::policy::doctor
