// SPDX-License-Identifier: Apache-2.0
// The doctor's text report: each layer's answers, the verdict and the findings with remedies.
#pragma once

#include "policy/assess/assessment.hpp"
#include "policy/doctor/doctor.hpp"

#include <string>
#include <vector>

namespace peergate::report::doctor {

std::string doctor_to_text(const policy::doctor::DoctorInput& input,
                           const policy::doctor::DoctorReport& report,
                           const policy::assess::Assessment& assessment,
                           bool color);

// Each finding as "\n[severity] code: message" and its "  remedy: ..." line (shared with the
// other reports that carry findings: watch).
std::string findings_to_text(const std::vector<model::Finding>& findings);

}  // namespace peergate::report::doctor
