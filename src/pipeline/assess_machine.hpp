// SPDX-License-Identifier: Apache-2.0
// The one read and the one assessment of this machine that doctor, export and the fleet's node
// line render: the doctor's facts and findings, the gate's decision for the GPUs examined, and
// what each pair, the host and the node are (policy/assess, docs/assessment.md).
#pragma once

#include "pipeline/context.hpp"
#include "pipeline/doctor.hpp"
#include "policy/assess/assessment.hpp"
#include "policy/doctor/doctor.hpp"
#include "policy/doctor/node_state.hpp"
#include "util/expected.hpp"

#include <string>

namespace peergate::pipeline {

struct MachineAssessment {
    policy::doctor::DoctorInput input;
    policy::doctor::DoctorReport report;
    policy::doctor::GateOutcome gate;  // for the GPUs examined, as `gate --gpus LIST` decides
    policy::assess::Assessment assessment;
};

// `identity_helper`: the peergate binary the gate runs `cuda-visible` in (GateRequest), so the
// node's verdict is the one `peergate gate` gives here. Errors: those of gather_doctor_input.
util::Expected<MachineAssessment> assess_machine(const Context& ctx,
                                                 const DoctorOptions& options,
                                                 const std::string& identity_helper);

}  // namespace peergate::pipeline
