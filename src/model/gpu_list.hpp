// SPDX-License-Identifier: Apache-2.0
// The one grammar of a GPU list on the command line (--gpus of every command, --require of
// place, a placed launch's list): 'all', or nvidia-smi indices separated by commas, each
// once. An empty list and a GPU named twice are errors everywhere, with the same message.
#pragma once

#include "util/expected.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace peergate::model {

// More GPUs than any chassis holds; a larger number is a typo, not an index.
inline constexpr int kMaxGpuIndex = 4095;

// nullopt for 'all'; else the indices in the order given. `option` names the option in the
// error ("--gpus '0,0': GPU 0 is listed twice").
util::Expected<std::optional<std::vector<int>>> parse_gpu_list(std::string_view text,
                                                               std::string_view option = "--gpus");

// The same for a command that takes 'all' as every GPU: the indices, empty for 'all'.
util::Expected<std::vector<int>> parse_gpu_indices(std::string_view text,
                                                   std::string_view option = "--gpus");

}  // namespace peergate::model
