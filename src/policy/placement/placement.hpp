// SPDX-License-Identifier: Apache-2.0
// Topology-aware GPU groups for tensor parallelism (`peergate place`), with the objective
// fixed by issue 7 so that any result can be checked:
//   pair weight w(a,b): NV<n> -> 1000+n, PIX 50, PXB 40, PHB 30, NODE 20, SYS 10, or the
//   measured P2P GB/s of the slower direction when bandwidth samples are given;
//   bottleneck b(g) = min w over the group's pairs (+infinity for a group of one);
//   maximise, in this order, (1) min b(g), (2) sum b(g), (3) sum of all intra-group pair
//   weights, (4) minus the NUMA nodes spanned summed over groups; ties go to the
//   lexicographically smallest sorted list of sorted groups.
// Pure: a Topology and a request in, a result out.
#pragma once

#include "model/bandwidth_sample.hpp"
#include "model/link_label.hpp"
#include "model/topology.hpp"
#include "util/expected.hpp"

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace peergate::policy::placement {

using Weight = std::int64_t;

// The bottleneck of a group of one: no pair limits it.
inline constexpr Weight kUnlimited = std::numeric_limits<Weight>::max() / 4;

// Measured weights are kept as integers in hundredths of a GB/s, so that sums compare
// exactly whatever order they were added in.
inline constexpr Weight kBandwidthScale = 100;

// Pair weight of a link label by the fixed table; 0 for X and unknown.
Weight link_weight(const model::LinkLabel& label);

// One directed bandwidth measurement (src -> dst), as a peergate.bench/v1 file gives it.
using model::BandwidthSample;

struct PlacementRequest {
    int size = 0;                 // K: GPUs per group
    std::optional<int> count;     // G: groups; default floor(candidates / K)
    std::vector<int> candidates;  // nvidia-smi indices; empty = every GPU
    std::vector<int> required;    // forced into the first group
    std::optional<std::vector<BandwidthSample>> bandwidth;  // measured weights instead of labels
    // Exact search nodes (about 1 s) before falling back; the last stage's two searches run
    // side by side on two CPUs, with up to what is left each (race.hpp).
    std::uint64_t node_budget = 1'800'000;
};

struct PlacementObjective {
    Weight min_bottleneck = kUnlimited;  // (1)
    Weight sum_bottleneck = kUnlimited;  // (2); kUnlimited when groups have one GPU
    Weight sum_pair_weight = 0;          // (3)
    int numa_spans = 0;                  // (4), minimised

    friend bool operator==(const PlacementObjective&, const PlacementObjective&) = default;
};

// True when `a` is strictly better than `b` by the lexicographic order of the objective.
bool better(const PlacementObjective& a, const PlacementObjective& b);

enum class PlacementMethod {
    trivial,    // groups of one
    uniform,    // every pair the same weight: NUMA spans and the tie-break decide, solved directly
    exact,      // branch and bound finished
    heuristic,  // islands, greedy and swaps; the gap bounds how far from optimal (1) may be
};

std::string_view to_string(PlacementMethod method);

struct PlacedGroup {
    std::vector<int> gpus;                               // sorted nvidia-smi indices
    std::optional<Weight> bottleneck;                    // nullopt for a group of one
    std::optional<std::pair<int, int>> bottleneck_pair;  // the smallest pair reaching it
    std::optional<model::LinkLabel> bottleneck_label;
    Weight pair_weight_sum = 0;
    std::vector<int> numa_nodes;  // known nodes, sorted
    bool numa_unknown = false;    // a member's node is not known
    bool required = false;        // holds the --require GPUs
};

struct PlacementResult {
    int size = 0;
    int count = 0;
    std::vector<PlacedGroup> groups;  // the required group first, then by smallest member
    std::vector<int> leftover;        // candidates in no group, sorted
    PlacementObjective objective;
    PlacementMethod method = PlacementMethod::exact;
    bool exact = false;               // the objective value and the tie-break are proven
    Weight upper_bound = kUnlimited;  // no placement has a larger (1)
    Weight gap = 0;                   // upper_bound - objective.min_bottleneck
    // What no placement can beat, term by term in the objective's order: no (1) above
    // bound.min_bottleneck (= upper_bound); among placements with the answer's (1), no (2)
    // above bound.sum_bottleneck; among those with its (2) too, no (3) above
    // bound.sum_pair_weight; then no fewer NUMA spans than bound.numa_spans. The objective
    // itself when exact; kUnlimited (numa_spans 0) where nothing bounds a term.
    PlacementObjective bound;
    std::uint64_t nodes = 0;  // search nodes explored
    bool measured = false;    // weights are bandwidth (x kBandwidthScale), not labels
};

// Chooses the groups. Errors (invalid_input): K < 1, an unknown or repeated GPU in
// candidates/required, required not among the candidates or larger than K, K*G larger
// than the candidates, G < 1, a candidate pair with no label or no bandwidth sample.
// The first term of the objective that the answer is not proven to reach the best possible
// of ("min_bottleneck", "sum_bottleneck", "sum_pair_weight", "numa_spans"), "tie_break" when
// only the smallest list is not proven, nullopt when exact.
std::optional<std::string_view> open_term(const PlacementResult& result);

util::Expected<PlacementResult> place(const model::Topology& topology,
                                      const PlacementRequest& request);

}  // namespace peergate::policy::placement
