// SPDX-License-Identifier: Apache-2.0
// vLLM's own P2P cache as one more layer: vLLM tests each pair once, with one small copy,
// keeps the answer on disk and reads it instead of testing again. Pure.
#pragma once

#include "model/finding.hpp"
#include "policy/vllm_p2p_cache.hpp"

#include <optional>
#include <vector>

namespace peergate::policy {

// vllm_p2p_cache_trusted (warning): a cache says peer access works while the findings so far
// say this host's PCIe peer copies are not safe (a translating IOMMU, data lost in the probe).
// nullopt otherwise.
std::optional<model::Finding> vllm_cache_finding(const std::vector<VllmP2pCache>& caches,
                                                 const std::vector<model::Finding>& so_far);

}  // namespace peergate::policy
