// SPDX-License-Identifier: Apache-2.0
// What the doctor reads from the host, shared with `export`, which renders the same facts
// in the ecosystem's formats: the runtime parts, the topology tiers, every pair's
// capability layers, and (when asked) a probe, a bench result and the kernel log.
#pragma once

#include "pipeline/context.hpp"
#include "policy/doctor/doctor.hpp"
#include "util/expected.hpp"

#include <string>

namespace peergate::pipeline {

struct DoctorOptions {
    std::string kernel_log;
    std::string gpus = "all";
    bool probe = false;
    double soak_s = 0.0;  // with probe: sweep again until this many seconds have passed
    std::string html;
    std::string bandwidth;
};

// Everything the doctor reasons over. Errors are usage errors: a --gpus GPU not on the
// host, a --bandwidth file that is not a bench result.
util::Expected<policy::doctor::DoctorInput> gather_doctor_input(const Context& ctx,
                                                                const DoctorOptions& options);

}  // namespace peergate::pipeline
