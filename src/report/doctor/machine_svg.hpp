// SPDX-License-Identifier: Apache-2.0
// The machine drawn for `doctor --html` as inline SVG (no script, no external font): the GPUs
// by NUMA node with their CPUs, the NVSwitch fabric or the NVLink edges with their link
// counts (a GPU with links down drawn red and dashed), the PCIe ports down to the root
// complex (ACS redirect marked), the NICs beside the GPUs, and each pair with a problem in
// the problem's colour (data lost, slower than staged). docs/doctor.md, "HTML".
#pragma once

#include "policy/doctor/doctor.hpp"

#include <string>
#include <vector>

namespace peergate::report::doctor {

// A pair of GPUs the drawing marks: the worse direction's problem.
struct PairProblem {
    int a = 0;
    int b = 0;
    std::string what;     // "data lost", "probe error", "slower than staged"
    bool severe = false;  // data lost or a probe error: the red colour
};

// Every unordered pair of examined GPUs with a problem in input.pairs, by (a, b).
std::vector<PairProblem> pair_problems(const policy::doctor::DoctorInput& input);

// The <svg> element; "" where no topology was read.
std::string machine_svg(const policy::doctor::DoctorInput& input,
                        const policy::doctor::DoctorReport& report);

}  // namespace peergate::report::doctor
