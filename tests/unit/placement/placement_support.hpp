// SPDX-License-Identifier: Apache-2.0
// Test-only helpers for the placement tests: topologies from token matrices, random
// topologies, and a brute-force enumerator of every placement.
#pragma once

#include "model/topology.hpp"
#include "policy/placement/placement.hpp"
#include "policy/placement/race.hpp"

#include <optional>
#include <random>
#include <string>
#include <vector>

namespace peergate::placement_test {

// GPUs 0..n-1 with the given NUMA nodes (nullopt = unknown) and the matrix of legend tokens.
model::Topology topology_from(const std::vector<std::vector<std::string>>& tokens,
                              const std::vector<std::optional<int>>& numa);

// A symmetric matrix of labels drawn from NV1..NV18, PIX, PXB, PHB, NODE, SYS and NUMA
// nodes drawn from {0, 1, 2, unknown}.
model::Topology random_topology(std::mt19937& rng, int n);

struct Brute {
    policy::placement::PlacementObjective objective;
    std::vector<std::vector<int>> groups;  // sorted list of sorted groups (GPU indices)
};

// Scores every placement of `count` groups of `size` among `candidates` (every GPU when
// empty) holding all of `required` in one group; the best by the objective, ties to the
// smallest list. nullopt when there is none.
std::optional<Brute> brute_force(const model::Topology& topology,
                                 int size,
                                 int count,
                                 std::vector<int> candidates,
                                 const std::vector<int>& required);

// The result's groups as a sorted list of sorted groups.
std::vector<std::vector<int>> sorted_groups(const policy::placement::PlacementResult& result);

// A request on n GPUs: K drawn from [min_size, max_size], about 4 in 5 GPUs as candidates
// (shuffled), a count that fits them, and up to `max_required` of them required. nullopt
// when fewer than K candidates were drawn.
std::optional<policy::placement::PlacementRequest> random_request(
    std::mt19937& rng, int n, int min_size, int max_size, int max_required);

// Describes a request for failure messages: K, G, candidates and required GPUs.
std::string describe(const policy::placement::PlacementRequest& request);

// place() against brute_force(): both find a placement or neither; then exact, the same
// objective and the same groups.
void expect_place_matches_brute_force(const model::Topology& topology,
                                      const policy::placement::PlacementRequest& request,
                                      const std::string& what);

// The same through the exact solver with its last stage forced (race.hpp): by
// default the search that fills all groups at once (assign.hpp) alone.
void expect_exact_search_matches_brute_force(
    const model::Topology& topology,
    const policy::placement::PlacementRequest& request,
    const std::string& what,
    policy::placement::Searches searches = policy::placement::Searches::all_groups_only);

}  // namespace peergate::placement_test
