// SPDX-License-Identifier: Apache-2.0
// The placement problem as the solvers see it: candidates renumbered 0..n-1 in ascending
// GPU index (so the tie-break on indices is the tie-break on positions), integer pair
// weights, a NUMA class per candidate (an unknown node is a class of its own).
#pragma once

#include "policy/placement/placement.hpp"

#include <cstdint>
#include <vector>

namespace peergate::policy::placement {

// Element `i` of a vector indexed by candidate position (positions are ints).
template <typename Vector>
decltype(auto) at(Vector& v, int i) {
    return v[static_cast<std::size_t>(i)];
}

// Groups of candidate positions: each sorted, ordered by their smallest member.
using Groups = std::vector<std::vector<int>>;

struct Problem {
    int n = 0;                   // candidates
    int k = 0;                   // group size
    int g = 0;                   // groups wanted
    std::vector<int> ids;        // GPU index of each position, ascending
    std::vector<Weight> weight;  // n*n, 0 on the diagonal
    std::vector<int> numa;       // NUMA class per position, 0..numa_classes-1
    int numa_classes = 0;
    std::vector<char> required;  // per position
    int required_count = 0;

    // The index of pair (a, b) in `weight` (row-major).
    std::size_t cell(int a, int b) const {
        return static_cast<std::size_t>(a) * static_cast<std::size_t>(n) +
               static_cast<std::size_t>(b);
    }

    Weight w(int a, int b) const { return weight[cell(a, b)]; }

    bool is_required(int a) const { return required[static_cast<std::size_t>(a)] != 0; }
};

// Validates the request against the topology and builds the problem (errors as place()).
util::Expected<Problem> build_problem(const model::Topology& topology,
                                      const PlacementRequest& request);

// The distinct off-diagonal weights among the candidates, ascending.
std::vector<Weight> distinct_weights(const Problem& problem);

// True when every candidate pair has the same weight (NVSwitch boxes).
bool uniform_weights(const Problem& problem);

// The candidates at `positions` (in that order) as a problem of their own wanting `groups`
// groups; weights, NUMA classes and required marks come along. `ids` keeps the GPU indices.
Problem sub_problem(const Problem& problem, const std::vector<int>& positions, int groups);

// The candidates in none of `groups`, ascending.
std::vector<int> leftover_of(const Problem& problem, const Groups& groups);

// Sorts each group and the groups by their smallest member.
void normalise(Groups& groups);

}  // namespace peergate::policy::placement
