// SPDX-License-Identifier: Apache-2.0
// gate/exec --place K: which GPUs a launch gets when the user names a group size, not the
// GPUs: the best group of K on this host, as `peergate place --size K --count 1` finds it.
#pragma once

#include "cli/invocation.hpp"
#include "util/expected.hpp"

#include <CLI/CLI.hpp>

#include <optional>
#include <string>

namespace peergate::cli {

// --place K for gate and exec.
void add_place_option(CLI::App* sub, int& place);

// The --gpus text a launch is gated for: `given` (nullopt: no --gpus) as it is, or with
// `place` > 0 the best `place` GPUs among it; without --gpus, among the GPUs an inherited
// CUDA_VISIBLE_DEVICES exposes (an allocation), else every GPU. The choice is logged on
// stderr (not with -q). Errors are usage errors.
util::Expected<std::optional<std::string>> launch_gpus(const Invocation& inv,
                                                       const std::optional<std::string>& given,
                                                       int place,
                                                       const std::string& profile);

}  // namespace peergate::cli
