// SPDX-License-Identifier: Apache-2.0
// vLLM's cache of its own P2P check, as the gate and the doctor take it (read by
// sources/host/vllm_p2p_cache). Pure.
#pragma once

#include "model/vllm_p2p_cache.hpp"

#include <string>
#include <vector>

namespace peergate::policy::gate {

using model::VllmP2pCache;

// The entries that claim peer access between two different devices ("0->0" is in the file
// too, and says nothing about peers).
std::vector<std::string> claimed_peer_pairs(const VllmP2pCache& cache);

}  // namespace peergate::policy::gate
