// SPDX-License-Identifier: Apache-2.0
// vLLM's and SGLang's own P2P caches as one more layer: each tests each pair once, with one
// small copy, keeps the answer on disk and reads it instead of testing again. Pure.
#pragma once

#include "model/finding.hpp"
#include "policy/gate/vllm_p2p_cache.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace peergate::policy::doctor {

// An engine that keeps the answers of its own P2P check in files and trusts them: vLLM, and
// SGLang, whose check is adapted from vLLM's.
struct P2pCacheEngine {
    model::FindingCode code;        // the finding's code
    std::string_view name;          // "vLLM"
    std::string_view test_setting;  // the setting that would make it test: "VLLM_SKIP_P2P_CHECK=0"
    std::string_view profile;       // peergate exec --for ...
};

inline constexpr P2pCacheEngine kVllmCache{
    model::FindingCode::vllm_p2p_cache_trusted, "vLLM", "VLLM_SKIP_P2P_CHECK=0", "vllm"};
inline constexpr P2pCacheEngine kSglangCache{
    model::FindingCode::sglang_p2p_cache_trusted, "SGLang", "SGLANG_SKIP_P2P_CHECK=0", "sglang"};

// <engine>_p2p_cache_trusted (warning): a cache says peer access works while the findings so
// far say this host's PCIe peer copies are not safe (a translating IOMMU, data lost in the
// probe). nullopt otherwise.
std::optional<model::Finding> p2p_cache_finding(const P2pCacheEngine& engine,
                                                const std::vector<model::VllmP2pCache>& caches,
                                                const std::vector<model::Finding>& so_far);

}  // namespace peergate::policy::doctor
