// SPDX-License-Identifier: Apache-2.0
// The machine drawn for `doctor --html` as inline SVG (no script, no external font): the GPUs
// by NUMA node with their CPUs, the NVSwitch fabric or the NVLink edges with their link
// counts (a GPU with links down drawn red and dashed), the PCIe ports down to the root
// complex (ACS redirect marked), the NICs beside the GPUs, and each pair with a problem in
// the problem's colour (data lost, slower than staged). docs/doctor.md, "HTML".
#pragma once

#include "policy/assess/assessment.hpp"
#include "policy/doctor/doctor.hpp"

#include <string>
#include <vector>

namespace peergate::report::doctor {

// A pair of GPUs the drawing marks: the worse direction's state (policy/assess).
struct PairProblem {
    int a = 0;
    int b = 0;
    std::string what;     // "data lost", "probe error", "slower than staged"
    bool severe = false;  // data lost: the red colour; the others amber
};

// Every unordered pair of examined GPUs whose worse direction is data lost, a probe error or
// slower than staged, by (a, b).
std::vector<PairProblem> pair_problems(const policy::assess::Assessment& assessment);

// The <svg> element; "" where no topology was read.
std::string machine_svg(const policy::doctor::DoctorInput& input,
                        const policy::doctor::DoctorReport& report,
                        const policy::assess::Assessment& assessment);

}  // namespace peergate::report::doctor
