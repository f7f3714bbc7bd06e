// SPDX-License-Identifier: Apache-2.0
#include "policy/fleet/slurm_health.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::policy::fleet {

namespace {

// What failed, in few words: the first error's code and GPUs, and how many errors there are.
std::string failure_summary(const doctor::DoctorReport& report) {
    const auto error =
        std::find_if(report.findings.begin(), report.findings.end(), [](const auto& f) {
            return f.severity == model::Severity::error;
        });
    if (error == report.findings.end()) {
        return fmt::format("doctor verdict {}", to_string(report.verdict));
    }
    const auto errors =
        std::count_if(report.findings.begin(), report.findings.end(), [](const auto& f) {
            return f.severity == model::Severity::error;
        });
    std::string gpus;
    for (int gpu : error->gpus) {
        gpus += (gpus.empty() ? " GPU" : ",GPU") + std::to_string(gpu);
    }
    return fmt::format("{}{}{}",
                       error->id(),
                       gpus,
                       errors > 1 ? fmt::format(" and {} more errors", errors - 1) : std::string());
}

bool ours(const SlurmNodeDrain& node) {
    return std::string_view(node.reason).starts_with(kDrainLeader);
}

// scontrol shows a reason with " [user@time]" after it, the time the node was drained; an
// update with the same words would only move that time and log one more update per check.
bool same_reason(std::string_view shown, std::string_view planned) {
    if (!shown.starts_with(planned)) {
        return false;
    }
    const auto rest = shown.substr(planned.size());
    return rest.empty() || (rest.starts_with(" [") && rest.ends_with("]"));
}

}  // namespace

HealthPlan plan_health(const doctor::DoctorReport& report,
                       const std::optional<SlurmNodeDrain>& node) {
    HealthPlan plan;
    plan.healthy = report.verdict == doctor::Verdict::healthy;
    const std::string summary =
        plan.healthy ? "P2P layers agree, no error" : failure_summary(report);
    plan.line = (plan.healthy ? "ok: " : "fail: ") + summary;
    if (!node) {
        plan.why = "no drain asked for";
        return plan;
    }
    if (!plan.healthy) {
        plan.reason =
            fmt::format("{} {}; run peergate doctor", kDrainLeader, summary).substr(0, 200);
        const bool someone_elses = node->draining && !ours(*node);
        const bool already = node->draining && same_reason(node->reason, plan.reason);
        plan.action = someone_elses || already ? SlurmAction::none : SlurmAction::drain;
        plan.why = someone_elses ? "already drained by someone else: that reason stands"
                   : already     ? "already drained by peergate for this reason"
                                 : "unhealthy";
        return plan;
    }
    plan.action = node->draining && ours(*node) ? SlurmAction::resume : SlurmAction::none;
    plan.why = plan.action == SlurmAction::resume ? "healthy again after peergate drained it"
               : node->draining                   ? "drained by someone else: left drained"
                                                  : "healthy";
    return plan;
}

}  // namespace peergate::policy::fleet
