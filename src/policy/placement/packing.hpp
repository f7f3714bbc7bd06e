// SPDX-License-Identifier: Apache-2.0
// How many disjoint groups of K fit inside a set of candidates using only given pairs:
// exactly for the small sets the NUMA bound asks about (one NUMA class of the undecided
// candidates), where the truss count alone cannot see, say, that two groups of 8 do not
// fit in 16 GPUs missing a few NVLink pairs. n <= 64.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace peergate::policy::placement {

class GroupPacker {
public:
    // At most how many disjoint groups of K fit in `within`; exact unless the search runs
    // past its effort, when the answer is a bound that is still never too low.
    int most(const std::vector<std::uint64_t>& adjacency, std::uint64_t within, int k);

    // Search steps taken over every call so far.
    std::uint64_t spent() const { return spent_; }

private:
    void prepare(const std::vector<std::uint64_t>& adjacency, int k);
    bool fits(std::uint64_t within, int groups);
    bool completes(std::uint64_t within,
                   std::uint64_t group,
                   std::uint64_t candidates,
                   int missing,
                   int groups);

    const std::vector<std::uint64_t>* adjacency_ = nullptr;
    int k_ = 0;
    std::uint64_t effort_ = 0;  // this call
    std::uint64_t spent_ = 0;   // every call
    // (set, groups) -> fits; kept while the adjacency and K stay those of the last call.
    std::unordered_map<std::uint64_t, bool> known_;
    std::vector<std::uint64_t> known_for_;
    int known_k_ = 0;
};

}  // namespace peergate::policy::placement
