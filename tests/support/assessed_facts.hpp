// SPDX-License-Identifier: Apache-2.0
// Export facts a test built by hand, with the assessment every renderer reads computed from
// them, as pipeline::assess_machine computes it from a real read.
#pragma once

#include "policy/assess/assessment.hpp"
#include "report/exports/facts.hpp"

namespace peergate::test {

inline report::exports::ExportFacts assessed(report::exports::ExportFacts facts) {
    facts.assessment = policy::assess::assess(facts.doctor, facts.report, facts.gate);
    return facts;
}

}  // namespace peergate::test
