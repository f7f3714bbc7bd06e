// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/env_plan.hpp"

#include "policy/gate/veto.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::policy::gate {

std::optional<std::string> EnvPlan::inherited(std::string_view name) const {
    if (decision_.unsets(name)) {
        return std::nullopt;
    }
    return parent_.get(name);
}

std::optional<std::string> EnvPlan::child_value(std::string_view name) const {
    for (auto it = decision_.set.rbegin(); it != decision_.set.rend(); ++it) {
        if (it->name == name) {
            return it->value;
        }
    }
    return inherited(name);
}

bool EnvPlan::set_if_absent(std::string_view name, std::string value, std::string reason) {
    if (inherited(name)) {
        keep(name, "set by the user; peergate leaves it (it would have set " + value + ")");
        return false;
    }
    decision_.set.push_back(EnvSetting{std::string(name), std::move(value), std::move(reason)});
    return true;
}

void EnvPlan::set_always(std::string_view name, std::string value, std::string reason) {
    if (const auto old = inherited(name); old && *old != value) {
        warn(fmt::format("{}={} from the environment is replaced by {}", name, *old, value));
    }
    decision_.set.push_back(EnvSetting{std::string(name), std::move(value), std::move(reason)});
}

void EnvPlan::remove(std::string_view name, std::string reason) {
    if (!parent_.contains(name) || decision_.unsets(name)) {
        return;
    }
    decision_.unset.push_back(EnvRemoval{std::string(name), std::move(reason)});
}

void EnvPlan::keep(std::string_view name, std::string reason) {
    const auto value = inherited(name);
    if (!value || decision_.kept_value(name)) {
        return;
    }
    decision_.kept.push_back(EnvSetting{std::string(name), *value, std::move(reason)});
}

void EnvPlan::warn(std::string text) {
    decision_.warnings.push_back(std::move(text));
}

void plan_strip(const GateFacts& facts, EnvPlan& plan) {
    if (!facts.inherited.off()) {
        return;
    }
    plan.remove(kGgmlCudaP2p,
                fmt::format("the inherited value '{}' reads as off, but llama.cpp tests "
                            "GGML_CUDA_P2P for presence: left in place it would turn peer "
                            "access ON",
                            *facts.inherited.value));
}

Pinning pinning_of(const Selection& selection,
                   bool pin_selection,
                   const std::vector<model::Gpu>& host) {
    if (!selection.is_explicit() || !pin_selection) {
        return {};
    }
    std::vector<int> ids = selection.ids;
    if (selection.kind == Selection::Kind::all) {
        ids.clear();
        for (const auto& gpu : host) {
            ids.push_back(gpu.index);
        }
    }
    return Pinning{.device_order = "PCI_BUS_ID",
                   .visible_devices = ids.empty() ? std::nullopt
                                                  : std::optional<std::string>(
                                                        fmt::format("{}", fmt::join(ids, ",")))};
}

void plan_pinning(const GateFacts& facts, EnvPlan& plan) {
    const auto pinning = pinning_of(facts.input.selection, facts.input.pin_selection, facts.host);
    if (!pinning.device_order) {
        return;
    }
    plan.set_always(kDeviceOrder,
                    *pinning.device_order,
                    "--gpus names nvidia-smi indices (PCI bus order); the child's CUDA ordinals "
                    "must follow the same order");
    if (pinning.visible_devices) {
        plan.set_always(
            kVisibleDevices, *pinning.visible_devices, "the child sees exactly the gated GPUs");
    }
}

namespace {

void plan_p2p_variable(const GateFacts& facts, const P2pVerdict& verdict, EnvPlan& plan) {
    const bool user_truthy = facts.inherited.truthy();
    if (facts.control.disable_p2p.on) {
        if (user_truthy) {
            plan.remove(kGgmlCudaP2p,
                        facts.control.disable_p2p.variable +
                            "=1 removes the inherited GGML_CUDA_P2P='" + *facts.inherited.value +
                            "'");
        }
        return;
    }
    if (verdict.p2p) {
        plan.set_if_absent(kGgmlCudaP2p, "1", verdict.reason);
        if (user_truthy && verdict.rule != "every_pair_nvlink") {
            plan.warn("GGML_CUDA_P2P='" + *facts.inherited.value +
                      "' set by the user is kept on a fabric peergate has not confirmed as NVLink");
        }
        return;
    }
    if (user_truthy) {
        plan.keep(kGgmlCudaP2p, "set by the user; peergate honours it");
        plan.warn("GGML_CUDA_P2P='" + *facts.inherited.value +
                  "' set by the user is kept although the gate vetoes P2P: " + verdict.reason);
    }
}

}  // namespace

void plan_llama_cpp(const GateFacts& facts, const P2pVerdict& verdict, EnvPlan& plan) {
    if (facts.control.disable_tuning.on) {
        plan_p2p_variable(facts, verdict, plan);  // only keeps and warns: no tuning at all
        return;
    }
    const bool datacenter = facts.datacenter_selection();
    const auto count = facts.selection.ids.size();
    if (datacenter) {
        plan.set_if_absent(kForceCublas32f,
                           "1",
                           "data-center GPUs: cuBLAS computes in FP32 (a property of the silicon, "
                           "not gated on the interconnect)");
    }
    if (count > 1 && (datacenter || verdict.p2p)) {
        plan.set_if_absent(
            kLaunchQueues,
            "4x",
            fmt::format("{} GPUs selected: more CUDA launch queues (moves no data)", count));
    }
    plan_p2p_variable(facts, verdict, plan);
}

}  // namespace peergate::policy::gate
