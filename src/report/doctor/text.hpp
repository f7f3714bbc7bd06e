// SPDX-License-Identifier: Apache-2.0
// The doctor's text report: each layer's answers, the verdict and the findings with remedies.
#pragma once

#include "policy/doctor/doctor.hpp"

#include <string>

namespace peergate::report::doctor {

std::string doctor_to_text(const policy::doctor::DoctorInput& input,
                           const policy::doctor::DoctorReport& report,
                           bool color);

}  // namespace peergate::report::doctor
