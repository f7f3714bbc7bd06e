// SPDX-License-Identifier: Apache-2.0
// The doctor's text report on each examined GPU's links: its PCIe link (trained width
// against what both ends can do, and the speed now), its NVLinks up, and the error counters
// of both. Pure.
#pragma once

#include "policy/doctor/doctor.hpp"

#include <string>

namespace peergate::report::doctor {

// "\nLinks (...):\n  GPU1  PCIe x8 of x16, 2.5 GT/s now  NVLinks 18 of 18 up  ..." for every
// examined GPU with a fact to show; "" when there is none (no sysfs, no NVLink walk).
std::string links_to_text(const policy::doctor::DoctorInput& input);

}  // namespace peergate::report::doctor
