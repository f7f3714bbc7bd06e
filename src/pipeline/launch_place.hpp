// SPDX-License-Identifier: Apache-2.0
// gate/exec --place K: which GPUs a launch gets when the user names a group size, not the
// GPUs: the best group of K on this host, as `peergate place --size K --count 1` finds it.
#pragma once

#include "pipeline/context.hpp"
#include "util/expected.hpp"

#include <optional>
#include <string>

namespace peergate::pipeline {

struct PlacedLaunch {
    std::string gpus;  // "2,3": what --gpus would have said
    std::string why;   // one line: the weakest link, the NUMA nodes, proven best or not
};

// The best `place` GPUs for a launch among `given` (a --gpus text); without it, among the
// GPUs an inherited CUDA_VISIBLE_DEVICES exposes (an allocation), matched to nvidia-smi
// indices through `identity_helper` as the gate matches them (GateRequest), else every GPU.
// Errors are usage errors: no topology, a bad list, fewer candidates than `place`.
util::Expected<PlacedLaunch> place_launch(const Context& ctx,
                                          const std::optional<std::string>& given,
                                          int place,
                                          const std::string& profile,
                                          const std::string& identity_helper);

// The --gpus text a launch is gated for: `given` (nullopt: no --gpus) as it is, or with
// `place` > 0 the best `place` GPUs among it; without --gpus, among the GPUs an inherited
// CUDA_VISIBLE_DEVICES exposes (an allocation), else every GPU. The choice is logged on
// stderr (not with -q). Errors are usage errors.
util::Expected<std::optional<std::string>> launch_gpus(const Context& ctx,
                                                       const std::optional<std::string>& given,
                                                       int place,
                                                       const std::string& profile);

}  // namespace peergate::pipeline
