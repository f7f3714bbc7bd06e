// SPDX-License-Identifier: Apache-2.0
#include "policy/doctor/nvlink.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>

namespace peergate::policy::doctor {

namespace {

using model::Finding;
using model::Severity;

using Model = std::vector<const GpuLinks*>;  // the GPUs that share one name

// The number of links most GPUs of a model have up, ties to the larger, among the GPUs with
// any up; nullopt when none has.
std::optional<int> usual_up(const Model& model) {
    std::map<int, int> votes;
    for (const auto* gpu : model) {
        if (gpu->up() > 0) {
            ++votes[gpu->up()];
        }
    }
    std::optional<int> usual;
    int most = 0;
    for (const auto& [up, count] : votes) {  // ascending, so a tie goes to the larger
        if (count >= most) {
            most = count;
            usual = up;
        }
    }
    return usual;
}

std::string what_is_down(const GpuLinks& gpu) {
    if (gpu.up() == 0) {
        return fmt::format("none of its {} NVLinks up", gpu.slots);
    }
    return fmt::format("{} of its {} NVLinks up (down: link{} {})",
                       gpu.up(),
                       gpu.slots,
                       gpu.down.size() == 1 ? "" : "s",
                       fmt::join(gpu.down, ", "));
}

std::string remedy_for(const GpuLinks& gpu, bool switched) {
    const std::string read = fmt::format(
        "read each link's state with 'nvidia-smi nvlink -s -i {0}' and its error counters with "
        "'nvidia-smi nvlink -e -i {0}', and look for Xid 74 (NVLink error) in the kernel log "
        "('peergate doctor --kernel-log -'). ",
        gpu.gpu);
    const std::string until = fmt::format(
        "Until then, leave GPU {} out of tensor-parallel groups ('peergate place --gpus' "
        "without it).",
        gpu.gpu);
    if (switched) {
        return "On an NVSwitch baseboard every link should be up: " + read +
               "A GPU reset or a reboot retrains the links; links still down after it need a "
               "hardware repair. " +
               until;
    }
    return "If every card should carry the same NVLink bridges, a bridge on GPU " +
           std::to_string(gpu.gpu) + " is loose or failed: reseat it, then " + read + until;
}

Finding down_finding(const GpuLinks& gpu, int usual, const Model& model, bool switched) {
    const auto alike = std::count_if(
        model.begin(), model.end(), [&](const GpuLinks* other) { return other->up() == usual; });
    const std::string effect =
        gpu.up() == 0 ? std::string("its pairs fall back to PCIe")
                      : fmt::format(
                            "every transfer through GPU {} gets at most {}/{} of the NVLink "
                            "bandwidth the others get",
                            gpu.gpu,
                            gpu.up(),
                            usual);
    return Finding{
        .code = model::FindingCode::nvlink_down,
        .severity = switched ? Severity::error : Severity::warning,
        .gpus = {gpu.gpu},
        .message = fmt::format("GPU {} ({}) has {}, where {} other {} GPU{} {} {} up{}: {}",
                               gpu.gpu,
                               gpu.name,
                               what_is_down(gpu),
                               alike,
                               gpu.name,
                               alike == 1 ? "" : "s",
                               alike == 1 ? "has" : "have",
                               usual,
                               switched ? " to the NVSwitch fabric" : "",
                               effect),
        .remedy = remedy_for(gpu, switched)};
}

}  // namespace

std::vector<Finding> nvlink_down_findings(const std::vector<GpuLinks>& links) {
    std::map<std::string, Model> models;
    for (const auto& gpu : links) {
        models[gpu.name].push_back(&gpu);
    }
    std::vector<Finding> out;
    for (const auto& [name, model] : models) {
        const auto usual = usual_up(model);
        const bool switched = std::any_of(
            model.begin(), model.end(), [](const GpuLinks* gpu) { return gpu->to_switch > 0; });
        for (const auto* gpu : model) {
            const bool short_of_usual = usual && !gpu->down.empty() && gpu->up() < *usual;
            if (short_of_usual && (gpu->up() > 0 || switched)) {
                out.push_back(down_finding(*gpu, *usual, model, switched));
            }
        }
    }
    std::sort(
        out.begin(), out.end(), [](const Finding& a, const Finding& b) { return a.gpus < b.gpus; });
    return out;
}

}  // namespace peergate::policy::doctor
