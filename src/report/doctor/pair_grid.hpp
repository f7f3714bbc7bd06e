// SPDX-License-Identifier: Apache-2.0
// The ordered pairs of `doctor --html` as a coloured grid: one cell per source (row) and
// destination (column), coloured by what the pair may do and what the data said, each layer in
// a compact form (topology, NVML read/write, CUDA, probe, bench), with a legend for every code.
// A cell where the capability layers say yes and the data says no stands out. docs/doctor.md.
#pragma once

#include "policy/assess/assessment.hpp"
#include "policy/doctor/doctor.hpp"

#include <string>
#include <string_view>

namespace peergate::report::doctor {

// The grid's CSS class for a pair's state (policy/assess): "nvlink", "intact", "unverified",
// "off", "slow", "unfinished", "lost".
std::string_view css_class(policy::assess::PairState state);

// The grid and its legend; "" where there are no pairs.
std::string pair_grid_html(const policy::doctor::DoctorInput& input,
                           const policy::assess::Assessment& assessment);

// The bandwidth heatmap of a --bandwidth result: per ordered pair P2P and staged GB/s and their
// ratio, shaded by the P2P rate; "" where nothing was measured.
std::string bandwidth_html(const policy::doctor::DoctorInput& input);

}  // namespace peergate::report::doctor
