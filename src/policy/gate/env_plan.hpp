// SPDX-License-Identifier: Apache-2.0
// The environment plan: what the child's environment gains and loses, with why. A value
// the user set wins and is reported as kept (docs/gate-rules.md §1 "set if absent").
#pragma once

#include "policy/gate/rules.hpp"
#include "policy/gate/types.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::policy::gate {

class EnvPlan {
public:
    EnvPlan(const util::EnvMap& parent, GateDecision& decision)
        : parent_(parent), decision_(decision) {}

    // Sets `name` unless the child would inherit it; an inherited value is kept and
    // reported. Returns true when peergate set it.
    bool set_if_absent(std::string_view name, std::string value, std::string reason);

    // What the child will see for `name`: the value planned so far, else the inherited one.
    std::optional<std::string> child_value(std::string_view name) const;
    // Sets `name` whatever the parent says (the pinning of an explicit selection); an
    // inherited different value is replaced with a warning.
    void set_always(std::string_view name, std::string value, std::string reason);
    // Removes an inherited `name` from the child's environment.
    void remove(std::string_view name, std::string reason);
    // Reports an inherited value as kept (it is left alone).
    void keep(std::string_view name, std::string reason);
    void warn(std::string text);

    // The value the child would inherit, after removals.
    std::optional<std::string> inherited(std::string_view name) const;

private:
    const util::EnvMap& parent_;
    GateDecision& decision_;
};

// The off-value strip of GGML_CUDA_P2P: on every path, whatever the profile.
void plan_strip(const GateFacts& facts, EnvPlan& plan);

// What pinning an explicit selection sets (docs/gate-rules.md §4): nothing for an inherited
// selection or without pinning; else CUDA_DEVICE_ORDER=PCI_BUS_ID and, when the list is not
// empty, CUDA_VISIBLE_DEVICES=<LIST> ("all" lists `host`'s indices). The gate's plan and the
// identity join's child environment both take it from here.
struct Pinning {
    std::optional<std::string> device_order;     // CUDA_DEVICE_ORDER's value
    std::optional<std::string> visible_devices;  // CUDA_VISIBLE_DEVICES's value
};

Pinning pinning_of(const Selection& selection,
                   bool pin_selection,
                   const std::vector<model::Gpu>& host);

// An explicit selection pins the child: CUDA_DEVICE_ORDER=PCI_BUS_ID and
// CUDA_VISIBLE_DEVICES=<LIST>, so the child sees exactly the gated GPUs (§4).
void plan_pinning(const GateFacts& facts, EnvPlan& plan);

// The llama.cpp profile: GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F, CUDA_SCALE_LAUNCH_QUEUES and
// GGML_CUDA_P2P under the control plane of §2.
void plan_llama_cpp(const GateFacts& facts, const P2pVerdict& verdict, EnvPlan& plan);

}  // namespace peergate::policy::gate
