// SPDX-License-Identifier: Apache-2.0
// The two counts of disjoint groups of K in a graph of usable pairs: truss_groups (an
// upper bound) and GroupPacker::most (exact within its effort), against a brute force
// on small random graphs and on the shapes they exist for.
#include "policy/placement/bounds.hpp"
#include "policy/placement/packing.hpp"
#include "policy/placement/truss.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <random>

namespace peergate {
namespace {

using Adjacency = std::vector<std::uint64_t>;
using policy::placement::GroupPacker;
using policy::placement::truss_groups;

void join(Adjacency& adjacency, int a, int b) {
    adjacency[static_cast<std::size_t>(a)] |= std::uint64_t{1} << b;
    adjacency[static_cast<std::size_t>(b)] |= std::uint64_t{1} << a;
}

// n GPUs, each pair usable with a probability drawn from [least_density, 0.95).
Adjacency random_graph(std::mt19937& rng, int n, double least_density) {
    const double density = std::uniform_real_distribution<double>(least_density, 0.95)(rng);
    Adjacency adjacency(static_cast<std::size_t>(n), 0);
    for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b) {
            if (std::uniform_real_distribution<double>(0, 1)(rng) < density) {
                join(adjacency, a, b);
            }
        }
    }
    return adjacency;
}

bool is_clique(const Adjacency& adjacency, std::uint64_t members) {
    for (std::uint64_t m = members; m != 0; m &= m - 1) {
        const int v = std::countr_zero(m);
        if ((members & ~(std::uint64_t{1} << v) & ~adjacency[static_cast<std::size_t>(v)]) != 0) {
            return false;
        }
    }
    return true;
}

// The most disjoint K-cliques in `within`, by trying every K-subset for the lowest member.
int brute_most(const Adjacency& adjacency, std::uint64_t within, int k) {
    if (std::popcount(within) < k) {
        return 0;
    }
    const int v = std::countr_zero(within);
    const std::uint64_t rest = within & ~(std::uint64_t{1} << v);
    int best = brute_most(adjacency, rest, k);
    for (std::uint64_t subset = rest; subset != 0; subset = (subset - 1) & rest) {
        if (std::popcount(subset) == k - 1 &&
            is_clique(adjacency, subset | (std::uint64_t{1} << v))) {
            best = std::max(best, 1 + brute_most(adjacency, rest & ~subset, k));
        }
    }
    return best;
}

TEST(PlacementPacking, MatchesBruteForceOnRandomGraphs) {
    std::mt19937 rng(4242U);
    GroupPacker packer;
    for (int trial = 0; trial < 300; ++trial) {
        const int n = std::uniform_int_distribution<int>(3, 11)(rng);
        const Adjacency adjacency = random_graph(rng, n, 0.3);
        const std::uint64_t all = (std::uint64_t{1} << n) - 1;
        const std::uint64_t some = all & std::uniform_int_distribution<std::uint64_t>(0, all)(rng);
        for (int k = 2; k <= 4; ++k) {
            for (std::uint64_t within : {all, some}) {
                const int expected = brute_most(adjacency, within, k);
                EXPECT_EQ(packer.most(adjacency, within, k), expected)
                    << "trial " << trial << " k " << k;
                EXPECT_GE(truss_groups(adjacency, within, k), expected)
                    << "trial " << trial << " k " << k;
            }
        }
    }
}

// The peel as written down: drop any pair with fewer than K-2 common partners or an end
// with fewer than K-1 partners, until none is dropped; then floor(size / K) per component.
int plain_truss(Adjacency adjacency, std::uint64_t within, int k) {
    for (auto& row : adjacency) {
        row &= within;
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (std::size_t a = 0; a < adjacency.size(); ++a) {
            for (std::size_t b = 0; b < adjacency.size(); ++b) {
                const bool paired = ((adjacency[a] >> b) & 1U) != 0;
                if (paired &&
                    (std::popcount(adjacency[a] & adjacency[b]) < k - 2 ||
                     std::popcount(adjacency[a]) < k - 1 || std::popcount(adjacency[b]) < k - 1)) {
                    adjacency[a] &= ~(std::uint64_t{1} << b);
                    adjacency[b] &= ~(std::uint64_t{1} << a);
                    changed = true;
                }
            }
        }
    }
    int groups = 0;
    std::vector<bool> seen(adjacency.size(), false);
    for (std::size_t start = 0; start < adjacency.size(); ++start) {
        if (seen[start] || ((within >> start) & 1U) == 0) {
            continue;
        }
        int size = 0;
        std::vector<std::size_t> stack{start};
        seen[start] = true;
        while (!stack.empty()) {
            const std::size_t v = stack.back();
            stack.pop_back();
            ++size;
            for (std::size_t u = 0; u < adjacency.size(); ++u) {
                if (((adjacency[v] >> u) & 1U) != 0 && !seen[u]) {
                    seen[u] = true;
                    stack.push_back(u);
                }
            }
        }
        groups += size / k;
    }
    return groups;
}

// The peel's drops may come in any order (each only lowers degrees and common partners):
// truss_groups checks each pair once per pass and must land where the plain peel does.
TEST(PlacementPacking, TrussMatchesThePlainPeel) {
    std::mt19937 rng(9090U);
    for (int trial = 0; trial < 300; ++trial) {
        const int n = std::uniform_int_distribution<int>(2, 40)(rng);
        const Adjacency adjacency = random_graph(rng, n, 0.2);
        const std::uint64_t all = (std::uint64_t{1} << n) - 1;
        const std::uint64_t within =
            all & std::uniform_int_distribution<std::uint64_t>(0, all)(rng);
        for (int k = 2; k <= 8; ++k) {
            EXPECT_EQ(truss_groups(adjacency, within, k), plain_truss(adjacency, within, k))
                << "trial " << trial << " k " << k;
        }
    }
}

// Sixteen GPUs, every pair usable but the ones forming a triangle: two groups of 8 would
// need the triangle split between them, which cannot be, so only one fits. Component
// counting (and the truss) see 16 members and say two.
TEST(PlacementPacking, OddCycleOfMissingPairsLeavesOneGroupOfEight) {
    Adjacency adjacency(16, 0);
    for (int a = 0; a < 16; ++a) {
        for (int b = a + 1; b < 16; ++b) {
            const bool missing = (a == 0 && b == 1) || (a == 1 && b == 2) || (a == 0 && b == 2);
            if (!missing) {
                join(adjacency, a, b);
            }
        }
    }
    GroupPacker packer;
    EXPECT_EQ(truss_groups(adjacency, 0xFFFF, 8), 2);
    EXPECT_EQ(packer.most(adjacency, 0xFFFF, 8), 1);
}

// Cliques of five and four joined by one pair (an NVLink bridge between two PCIe
// switches): the bridge is in no group of three, so the truss splits the component and
// counts one group per side, where the component's nine members would allow three.
TEST(PlacementPacking, TrussDropsABridgeNoGroupCanUse) {
    Adjacency adjacency(9, 0);
    for (int a = 0; a < 9; ++a) {
        for (int b = a + 1; b < 9; ++b) {
            if ((a < 5) == (b < 5)) {
                join(adjacency, a, b);
            }
        }
    }
    join(adjacency, 4, 5);
    EXPECT_EQ(truss_groups(adjacency, 0x1FF, 3), 2);
    EXPECT_EQ(truss_groups(adjacency, 0x1FF, 2),
              4);  // pairs may use the bridge: one component of nine
    GroupPacker packer;
    EXPECT_EQ(packer.most(adjacency, 0x1FF, 3), 2);
    EXPECT_EQ(packer.most(adjacency, 0x1FF, 2), 4);
}

}  // namespace
}  // namespace peergate
