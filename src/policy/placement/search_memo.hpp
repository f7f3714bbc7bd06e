// SPDX-License-Identifier: Apache-2.0
// What the group-by-group search (search.cpp) learnt about states it finished:
// the same undecided candidates, left-out set and group count reached again by another
// path need not be searched twice.
#pragma once

#include "policy/placement/bits.hpp"
#include "policy/placement/objective.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <unordered_map>
#include <unordered_set>

namespace peergate::policy::placement {

// A state of the search: which candidates are still undecided, which were left out (the
// twin rule depends on it) and how many groups remain.
struct SearchKey {
    Mask pool = 0;
    Mask left_out = 0;
    int groups = 0;
    friend bool operator==(const SearchKey&, const SearchKey&) = default;
};

struct SearchKeyHash {
    std::size_t operator()(const SearchKey& key) const {
        const Mask spread = key.pool * Mask{0x9E3779B97F4A7C15U};
        return std::hash<Mask>{}(spread ^ (key.left_out * Mask{0xC2B2AE3D27D4EB4FU}) ^
                                 static_cast<Mask>(static_cast<unsigned>(key.groups)));
    }
};

class SearchMemo {
public:
    // For the feasibility goal: no placement completes from this state.
    bool failed(const SearchKey& key) const { return failed_.contains(key); }

    void record_failure(const SearchKey& key) {
        if (failed_.size() < kLimit) {
            failed_.insert(key);
        }
    }

    // The most any completion from this state adds to the score, when known.
    const Score* ceiling(const SearchKey& key) const {
        const auto it = ceilings_.find(key);
        return it == ceilings_.end() ? nullptr : &it->second;
    }

    // A later proof against a better best may lower what was known, never raise it.
    void record_ceiling(const SearchKey& key, const Score& ceiling) {
        const auto it = ceilings_.find(key);
        if (it != ceilings_.end()) {
            it->second = std::min(it->second, ceiling);
        } else if (ceilings_.size() < kLimit) {
            ceilings_.emplace(key, ceiling);
        }
    }

private:
    // Past this many states the search goes on without remembering more.
    static constexpr std::size_t kLimit = std::size_t{1} << 21;

    std::unordered_map<SearchKey, Score, SearchKeyHash> ceilings_;
    std::unordered_set<SearchKey, SearchKeyHash> failed_;
};

}  // namespace peergate::policy::placement
