// SPDX-License-Identifier: Apache-2.0
// Slurm health check (docs/ecosystem.md §3.2): Slurm does not act on a health check's exit status,
// so the check drains its own node, with a reason that starts with "peergate:", and resumes
// only nodes whose reason starts so, as LBNL NHC does with "NHC:": a node a person drained
// stays drained. Pure: the caller reads the node's state and runs scontrol.
#pragma once

#include "policy/doctor/doctor.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace peergate::policy::fleet {

inline constexpr std::string_view kDrainLeader = "peergate:";

enum class SlurmAction { none, drain, resume };

struct SlurmNodeDrain {
    bool draining = false;
    std::string reason;  // as scontrol shows it; "" none
};

struct HealthPlan {
    bool healthy = false;
    std::string line;    // the one line printed: "ok: ..." or "fail: ..." (NHC matches /^ok/)
    std::string reason;  // for a drain: "peergate: ..." (at most 200 characters)
    SlurmAction action = SlurmAction::none;
    std::string why;  // why this action (or none), for -v and the tests
};

// `node`: the node's drain state when --drain asked for it (nullopt: no action wanted).
HealthPlan plan_health(const doctor::DoctorReport& report,
                       const std::optional<SlurmNodeDrain>& node);

}  // namespace peergate::policy::fleet
