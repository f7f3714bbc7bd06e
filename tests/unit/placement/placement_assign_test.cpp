// SPDX-License-Identifier: Apache-2.0
// The search that fills all groups at once (placement_assign), run alone through the
// solver's Searches::all_groups_only, against the brute-force enumerator: the same objective
// and the same groups (the tie-break) on random topologies, every K, with candidate lists,
// counts that leave GPUs out, and required GPUs.
#include "placement_support.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace peergate {
namespace {

using placement_test::describe;
using placement_test::expect_exact_search_matches_brute_force;
using placement_test::expect_place_matches_brute_force;
using placement_test::random_request;
using placement_test::random_topology;
using placement_test::topology_from;

// Labels from two or three tokens and one NUMA node: many placements tie on every
// component, so the tie-break decides.
model::Topology tie_heavy_topology(std::mt19937& rng, int n) {
    static const std::vector<std::vector<std::string>> kVocabularies = {
        {"NV1", "SYS"}, {"NV2", "NV1", "SYS"}, {"PIX", "NODE"}};
    const auto& vocabulary = kVocabularies[std::uniform_int_distribution<std::size_t>(0, 2)(rng)];
    std::uniform_int_distribution<std::size_t> pick(0, vocabulary.size() - 1);
    std::vector<std::vector<std::string>> tokens(
        static_cast<std::size_t>(n), std::vector<std::string>(static_cast<std::size_t>(n), "X"));
    for (std::size_t a = 0; a < tokens.size(); ++a) {
        for (std::size_t b = a + 1; b < tokens.size(); ++b) {
            tokens[a][b] = tokens[b][a] = vocabulary[pick(rng)];
        }
    }
    return topology_from(tokens, std::vector<std::optional<int>>(static_cast<std::size_t>(n), 0));
}

// A PCIe tree: GPUs under a few switches (twins: same switch, same NUMA node), so many
// placements tie and the group-by-group search's twin rule prunes most of them.
model::Topology tree_topology(std::mt19937& rng, int n) {
    std::vector<int> switch_of;
    std::vector<std::optional<int>> numa;
    for (int a = 0; a < n; ++a) {
        switch_of.push_back(std::uniform_int_distribution<int>(0, 3)(rng));
        numa.emplace_back(switch_of.back() % 2);
    }
    std::vector<std::vector<std::string>> tokens(
        static_cast<std::size_t>(n), std::vector<std::string>(static_cast<std::size_t>(n), "X"));
    for (int a = 0; a < n; ++a) {
        for (int b = a + 1; b < n; ++b) {
            const int sa = switch_of[static_cast<std::size_t>(a)];
            const int sb = switch_of[static_cast<std::size_t>(b)];
            tokens[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] =
                tokens[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] =
                    sa == sb           ? "PIX"
                    : sa % 2 == sb % 2 ? "NODE"
                                       : "SYS";
        }
    }
    return topology_from(tokens, numa);
}

TEST(PlacementTwins, TreesWithTwinsMatchBruteForce) {
    std::mt19937 rng(7004U);
    for (int trial = 0; trial < 200; ++trial) {
        const int n = std::uniform_int_distribution<int>(4, 10)(rng);
        const auto t = tree_topology(rng, n);
        policy::placement::PlacementRequest request{
            .size = std::uniform_int_distribution<int>(2, 4)(rng)};
        request.count = std::uniform_int_distribution<int>(1, n / request.size)(rng);
        if (std::uniform_int_distribution<int>(0, 3)(rng) == 0) {
            request.required = {std::uniform_int_distribution<int>(0, n - 1)(rng)};
        }
        expect_place_matches_brute_force(
            t, request, "trial " + std::to_string(trial) + " n " + std::to_string(n));
        expect_exact_search_matches_brute_force(
            t, request, "assign, trial " + std::to_string(trial));
    }
}

// Random topologies of one shape, n = 4..10, every K, through the forced all-groups search.
void expect_assign_search_for_every_k(model::Topology (*shape)(std::mt19937&, int),
                                      unsigned seed,
                                      int trials) {
    std::mt19937 rng(seed);
    for (int trial = 0; trial < trials; ++trial) {
        const int n = std::uniform_int_distribution<int>(4, 10)(rng);
        const auto t = shape(rng, n);
        for (int k = 2; k <= n / 2; ++k) {
            expect_exact_search_matches_brute_force(t,
                                                    policy::placement::PlacementRequest{.size = k},
                                                    "trial " + std::to_string(trial) + " n " +
                                                        std::to_string(n) + " K " +
                                                        std::to_string(k));
        }
    }
}

TEST(PlacementAssignSearch, MatchesBruteForceForEveryK) {
    expect_assign_search_for_every_k(random_topology, 7001U, 150);
}

TEST(PlacementAssignSearch, TieBreakMatchesBruteForceWhereManyPlacementsTie) {
    expect_assign_search_for_every_k(tie_heavy_topology, 7003U, 200);
}

TEST(PlacementAssignSearch, MatchesBruteForceWithCandidatesCountAndRequired) {
    std::mt19937 rng(7002U);
    for (int trial = 0; trial < 300; ++trial) {
        const int n = std::uniform_int_distribution<int>(4, 10)(rng);
        const auto t = random_topology(rng, n);
        if (const auto request = random_request(rng, n, 2, 4, 3)) {
            expect_exact_search_matches_brute_force(
                t, *request, "trial " + std::to_string(trial) + " " + describe(*request));
        }
    }
}

}  // namespace
}  // namespace peergate
