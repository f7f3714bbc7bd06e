// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/cliques.hpp"

#include "util/cpu_clones.hpp"

#include <algorithm>
#include <bit>

namespace peergate::policy::placement {

namespace {

constexpr std::uint64_t kCliqueEffort = 20'000;  // search nodes per candidate and level
// Cliques of at least this many more members are first bounded by colouring.
constexpr int kColouredNeed = 3;

struct CliqueFinder {
    const std::vector<std::uint64_t>& adjacency;  // pairs >= the level being tried
    std::uint64_t effort = 0;                     // branching steps, capped
    std::uint64_t coloured = 0;                   // colouring steps, paid for but not capped
    std::uint64_t found = 0;                      // members of the clique found

    // Fewer than `need` independent sets cover `cand` (colours taken greedily): a clique
    // takes at most one member of each, so none of `need` lies inside. Where the pairs are
    // random (half of them usable) this settles at once what the branching below would
    // otherwise exhaust its effort on.
    bool too_few_colours(std::uint64_t cand, int need) {
        int colours = 0;
        for (std::uint64_t uncoloured = cand; uncoloured != 0; ++colours) {
            if (colours == need) {
                return false;
            }
            for (std::uint64_t free = uncoloured; free != 0;) {
                ++coloured;
                const int v = std::countr_zero(free);
                uncoloured &= ~(std::uint64_t{1} << v);
                free &= ~(std::uint64_t{1} << v) & ~adjacency[static_cast<std::size_t>(v)];
            }
        }
        return colours < need;
    }

    // A clique of `need` more members inside `cand`, each later one above the previous.
    PEERGATE_WITH_POPCNT bool find(std::uint64_t cand, int need) {
        if (need == 0) {
            return true;
        }
        if (need >= kColouredNeed && too_few_colours(cand, need)) {
            return false;
        }
        while (std::popcount(cand) >= need) {
            if (++effort > kCliqueEffort) {
                return true;  // out of effort: claim it, which only loosens the bound
            }
            const int v = std::countr_zero(cand);
            cand &= cand - 1;
            if (find(cand & at(adjacency, v), need - 1)) {
                found |= std::uint64_t{1} << v;
                return true;
            }
        }
        return false;
    }
};

}  // namespace

std::vector<std::uint64_t> adjacency_at(const Problem& p, Weight level) {
    std::vector<std::uint64_t> adjacency(static_cast<std::size_t>(p.n), 0);
    for (int a = 0; a < p.n; ++a) {
        for (int b = 0; b < p.n; ++b) {
            if (a != b && p.w(a, b) >= level) {
                at(adjacency, a) |= std::uint64_t{1} << b;
            }
        }
    }
    return adjacency;
}

LevelAdjacency level_adjacency(const Problem& p, Weight threshold) {
    LevelAdjacency out;
    auto levels = distinct_weights(p);
    for (auto level = levels.rbegin(); level != levels.rend() && *level >= threshold; ++level) {
        out.levels.push_back(*level);
        out.adjacency.push_back(adjacency_at(p, *level));
    }
    return out;
}

PEERGATE_WITH_POPCNT std::vector<Weight> clique_ceilings(const Problem& p,
                                                         const LevelAdjacency& levels,
                                                         std::uint64_t pool,
                                                         const std::vector<Weight>* above,
                                                         std::uint64_t* steps) {
    std::vector<Weight> ceilings(static_cast<std::size_t>(p.n), kNoGroup);
    for (std::size_t i = 0; i < levels.levels.size(); ++i) {
        CliqueFinder finder{levels.adjacency[i]};
        for (std::uint64_t rest = pool; rest != 0; rest &= rest - 1) {
            const int v = std::countr_zero(rest);
            if (at(ceilings, v) != kNoGroup ||
                (above != nullptr && at(*above, v) < levels.levels[i])) {
                continue;
            }
            finder.effort = 0;
            finder.coloured = 0;
            finder.found = 0;
            const bool found = finder.find(at(finder.adjacency, v) & pool, p.k - 1);
            if (steps != nullptr) {
                *steps += finder.effort + finder.coloured;
            }
            if (found) {
                // Everyone in the clique found reaches this level too (levels go down).
                for (std::uint64_t m = finder.found | (std::uint64_t{1} << v); m != 0; m &= m - 1) {
                    at(ceilings, std::countr_zero(m)) =
                        std::max(at(ceilings, std::countr_zero(m)), levels.levels[i]);
                }
            }
        }
    }
    return ceilings;
}

std::vector<Weight> clique_ceilings(const Problem& p, Weight threshold) {
    const std::uint64_t all = p.n >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << p.n) - 1;
    return clique_ceilings(p, level_adjacency(p, threshold), all);
}

}  // namespace peergate::policy::placement
