// SPDX-License-Identifier: Apache-2.0
// The ordered pairs of `doctor --html` as a coloured grid: one cell per source (row) and
// destination (column), coloured by what the pair may do and what the data said, each layer in
// a compact form (topology, NVML read/write, CUDA, probe, bench), with a legend for every code.
// A cell where the capability layers say yes and the data says no stands out. docs/doctor.md.
#pragma once

#include "policy/doctor/doctor.hpp"

#include <string>
#include <string_view>

namespace peergate::report::doctor {

// The final reading of one ordered pair, as the grid colours it.
enum class PairColour {
    data_lost,   // the probe found data lost or could not finish: P2P must stay off
    slower,      // a bench measured P2P slower than copying through host memory
    intact,      // the probe moved data and compared it: intact
    nvlink,      // an NVLink path: P2P allowed without a probe
    unverified,  // PCIe with NVML and CUDA saying yes, but no data moved yet
    off,         // a capability layer says no: copies go through host memory (staged)
};

// "lost", "slow", "intact", "nvlink", "unverified", "off": the cell's CSS class.
std::string_view css_class(PairColour colour);

PairColour pair_colour(const policy::doctor::PairLayers& pair);

// The grid and its legend; "" where there are no pairs.
std::string pair_grid_html(const policy::doctor::DoctorInput& input);

// The bandwidth heatmap of a --bandwidth result: per ordered pair P2P and staged GB/s and their
// ratio, shaded by the P2P rate; "" where nothing was measured.
std::string bandwidth_html(const policy::doctor::DoctorInput& input);

}  // namespace peergate::report::doctor
