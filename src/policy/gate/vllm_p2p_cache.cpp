// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/vllm_p2p_cache.hpp"

#include <algorithm>
#include <iterator>
#include <string_view>

namespace peergate::policy::gate {

namespace {

// "3->3": a device with itself.
bool is_self_pair(std::string_view entry) {
    const auto arrow = entry.find("->");
    return arrow != std::string_view::npos && entry.substr(0, arrow) == entry.substr(arrow + 2);
}

}  // namespace

std::vector<std::string> claimed_peer_pairs(const VllmP2pCache& cache) {
    std::vector<std::string> pairs;
    std::copy_if(cache.says_works.begin(),
                 cache.says_works.end(),
                 std::back_inserter(pairs),
                 [](const std::string& entry) { return !is_self_pair(entry); });
    return pairs;
}

}  // namespace peergate::policy::gate
