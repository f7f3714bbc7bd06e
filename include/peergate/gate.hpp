// SPDX-License-Identifier: Apache-2.0
// peergate's P2P gate for programs that launch llama.cpp, vLLM or NCCL jobs themselves.
//
//   util::EnvMap env = util::EnvMap::from_envp(environ);   // what the child would inherit
//   peergate::GateDecision d = peergate::apply(env, {.selection = Selection::list({0, 1})});
//   // env now holds exactly what the child should get; d says why (d.veto, d.set, d.kept ...)
//
// decide() is pure: give it the facts (GPU names, topology, environment, selection, host
// facts, profile) and it returns the decision. apply() discovers this host itself through
// the default seams (NVML, else `nvidia-smi topo -m`; /sys and /proc under "/"), honouring
// PEERGATE_NVML_LIB, PEERGATE_NVIDIA_SMI and PEERGATE_HOST_ROOT in `env`, and never throws:
// a failure while deciding vetoes P2P with the reason. See docs/gate-profiles.md for every
// variable it may set and docs/c-api.md for the C entry point.
#pragma once

#include "policy/gate.hpp"
#include "policy/gate_types.hpp"
#include "util/env_map.hpp"

namespace peergate {

using policy::EnvRemoval;
using policy::EnvSetting;
using policy::GateDecision;
using policy::GateInput;
using policy::ProbeVerdict;
using policy::Profile;
using policy::Selection;
using util::EnvMap;

// The P2P decision and the environment plan for `input` (GATE-SPEC.md §1, §2, §4, §5).
GateDecision decide(const GateInput& input);

struct ApplyOptions {
    Selection selection;                   // default: the inherited environment decides
    Profile profile = Profile::llama_cpp;  // which launcher's variables to plan
    // > 0: decide for the best `place` GPUs among `selection` (inherited: among those the
    // environment's CUDA_VISIBLE_DEVICES exposes, else all), as `peergate gate --place`
    // picks them; the decision's selection names them. A placement that fails is a veto.
    int place = 0;
};

// Discovers this host, decides for the environment `env` and applies the plan to it:
// variables set, off-valued GGML_CUDA_P2P removed, user values kept, and for an explicit
// selection CUDA_DEVICE_ORDER=PCI_BUS_ID and CUDA_VISIBLE_DEVICES=<LIST>.
GateDecision apply(EnvMap& env, const ApplyOptions& options = {});

}  // namespace peergate
