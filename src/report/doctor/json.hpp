// SPDX-License-Identifier: Apache-2.0
// peergate.doctor/v1: every layer the doctor read, and its findings.
#pragma once

#include "policy/assess/assessment.hpp"
#include "policy/doctor/doctor.hpp"

#include <nlohmann/json.hpp>

namespace peergate::report::doctor {

nlohmann::ordered_json doctor_to_json(const policy::doctor::DoctorInput& input,
                                      const policy::doctor::DoctorReport& report,
                                      const policy::assess::Assessment& assessment);

// One finding as JSON (shared with other documents that carry findings).
nlohmann::ordered_json finding_to_json(const model::Finding& finding);

}  // namespace peergate::report::doctor
