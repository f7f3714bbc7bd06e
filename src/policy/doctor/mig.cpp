// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/mig.hpp"

#include "model/gpu.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace peergate::policy::doctor {

namespace {

using model::Finding;
using model::Severity;

Finding enabled_finding(const std::vector<int>& gpus) {
    return Finding{
        .code = model::FindingCode::mig_enabled,
        .severity = Severity::warning,
        .gpus = gpus,
        .message = fmt::format(
            "{} {} MIG enabled: CUDA gives MIG instances no peer access and no IPC, so NVLink and "
            "NVSwitch carry nothing between them and a multi-GPU job (tensor parallelism, NCCL) "
            "on them moves its traffic through host memory; the NVLinks and capability queries "
            "shown are the whole GPU's",
            model::gpu_words(gpus),
            gpus.size() == 1 ? "has" : "have"),
        .remedy = fmt::format(
            "For multi-GPU jobs, turn MIG off with no process on the GPU: `nvidia-smi -i {} -mig "
            "0` (some systems need a GPU reset or a reboot after it); or keep each job within "
            "one MIG instance.",
            fmt::join(gpus, ","))};
}

Finding pending_finding(const std::vector<int>& gpus) {
    return Finding{.code = model::FindingCode::mig_mode_pending,
                   .severity = Severity::info,
                   .gpus = gpus,
                   .message = fmt::format("{}: the MIG mode set differs from the one in force; "
                                          "the new mode takes effect at the next GPU reset",
                                          model::gpu_words(gpus)),
                   .remedy = "`nvidia-smi -i N -r` with no process on the GPU, or a reboot."};
}

}  // namespace

std::vector<Finding> mig_findings(const std::map<int, model::MigMode>& mig, std::size_t examined) {
    std::vector<int> enabled;
    std::vector<int> pending;
    for (const auto& [gpu, mode] : mig) {
        if (mode.enabled) {
            enabled.push_back(gpu);
        }
        if (mode.pending != mode.enabled) {
            pending.push_back(gpu);
        }
    }
    std::vector<Finding> out;
    if (!enabled.empty() && examined >= 2) {
        out.push_back(enabled_finding(enabled));
    }
    if (!pending.empty()) {
        out.push_back(pending_finding(pending));
    }
    return out;
}

}  // namespace peergate::policy::doctor
