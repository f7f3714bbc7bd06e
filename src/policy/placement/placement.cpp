// SPDX-License-Identifier: Apache-2.0
// place(): picks the solver for the problem at hand and describes its answer.
#include "policy/placement/placement.hpp"

#include "policy/placement/bounds.hpp"
#include "policy/placement/exact.hpp"
#include "policy/placement/heuristic.hpp"
#include "policy/placement/regroup.hpp"
#include "policy/placement/uniform.hpp"

#include <algorithm>

namespace peergate::policy::placement {

namespace {

using placement::Groups;
using placement::Problem;

struct Answer {
    Groups groups;
    PlacementMethod method = PlacementMethod::exact;
    bool exact = false;
    Weight upper_bound = kUnlimited;
    std::uint64_t nodes = 0;
    std::optional<placement::Score> score_bound;  // on (2)-(4), where (1) is proven
};

// Groups of one: every placement scores the same, so the smallest list wins, which holds
// the required GPU (if any) and the smallest other candidates.
Answer singletons(const Problem& p) {
    std::vector<int> chosen;
    for (int v = 0; v < p.n; ++v) {
        if (p.is_required(v)) {
            chosen.push_back(v);
        }
    }
    for (int v = 0; v < p.n && static_cast<int>(chosen.size()) < p.g; ++v) {
        if (!p.is_required(v)) {
            chosen.push_back(v);
        }
    }
    std::sort(chosen.begin(), chosen.end());
    Answer answer{.method = PlacementMethod::trivial, .exact = true};
    for (int v : chosen) {
        answer.groups.push_back({v});
    }
    return answer;
}

// Past this many candidates the heuristic's answer stands as it is.
constexpr int kRegroupLimit = 128;

Answer solve(const Problem& p, std::uint64_t node_budget) {
    if (p.k == 1) {
        return singletons(p);
    }
    if (auto groups = placement::uniform_placement(p)) {
        return Answer{.groups = std::move(*groups),
                      .method = PlacementMethod::uniform,
                      .exact = true,
                      .upper_bound = p.w(0, 1)};
    }
    const Weight ceiling = placement::first_component_bound(p);
    Groups start = placement::heuristic_placement(p, ceiling);
    if (p.n > placement::kExactLimit) {
        // Re-split with half the exact solver's share: the answer is due within 100 ms. At
        // n = 128 heuristic and re-split took up to 89 ms on 2 CPUs; at 256 the re-split
        // improved 18 of 140 answers for up to 74 ms more.
        const Weight threshold = placement::evaluate(p, start).min_bottleneck;
        const auto share = p.n <= kRegroupLimit ? placement::regroup_share(node_budget) / 2 : 0;
        const auto nodes = placement::regroup_pairs(p, threshold, start, share);
        return Answer{.groups = std::move(start),
                      .method = PlacementMethod::heuristic,
                      .upper_bound = ceiling,
                      .nodes = nodes};
    }
    auto solved = placement::solve_exactly(p, start, ceiling, node_budget);
    return Answer{.groups = std::move(solved.groups),
                  .method = solved.exact ? PlacementMethod::exact : PlacementMethod::heuristic,
                  .exact = solved.exact,
                  .upper_bound = solved.upper_bound,
                  .nodes = solved.nodes,
                  .score_bound = solved.score_bound};
}

PlacedGroup describe(const model::Topology& topology,
                     const Problem& p,
                     const std::vector<int>& group) {
    const auto stats = placement::group_stats(p, group);
    PlacedGroup placed;
    for (int v : group) {
        const int id = placement::at(p.ids, v);
        placed.gpus.push_back(id);
        placed.required = placed.required || p.is_required(v);
        const auto node = topology.gpus[*topology.position_of(id)].numa_node;
        if (node) {
            placed.numa_nodes.push_back(*node);
        } else {
            placed.numa_unknown = true;
        }
    }
    std::sort(placed.numa_nodes.begin(), placed.numa_nodes.end());
    placed.numa_nodes.erase(std::unique(placed.numa_nodes.begin(), placed.numa_nodes.end()),
                            placed.numa_nodes.end());
    placed.pair_weight_sum = stats.weight_sum;
    if (stats.low_a >= 0) {
        const int a = placement::at(p.ids, stats.low_a);
        const int b = placement::at(p.ids, stats.low_b);
        placed.bottleneck = stats.bottleneck;
        placed.bottleneck_pair = std::make_pair(a, b);
        placed.bottleneck_label = topology.label(a, b);
    }
    return placed;
}

// PlacementResult::bound: the objective when exact; else (1)'s upper bound and, where the
// searches proved one, theirs on (2)-(4) (a score doubles (3) and negates (4)). A term
// after the first the answer may fall short on bounds only placements that reach the
// bound there, not the answer's peers, so it is left unbounded.
PlacementObjective bound_of(const PlacementResult& result, const Answer& answer) {
    const PlacementObjective& found = result.objective;
    if (answer.exact) {
        return found;
    }
    PlacementObjective bound{.min_bottleneck = result.upper_bound,
                             .sum_bottleneck = kUnlimited,
                             .sum_pair_weight = kUnlimited,
                             .numa_spans = 0};
    if (!answer.score_bound || bound.min_bottleneck != found.min_bottleneck) {
        return bound;
    }
    const placement::Score& s = *answer.score_bound;
    bound.sum_bottleneck = s.sum_bottleneck;
    if (bound.sum_bottleneck != found.sum_bottleneck) {
        return bound;
    }
    bound.sum_pair_weight = s.doubled_weight / 2;
    if (bound.sum_pair_weight == found.sum_pair_weight) {
        bound.numa_spans = static_cast<int>(-s.negative_spans);
    }
    return bound;
}

PlacementResult describe(const model::Topology& topology,
                         const Problem& p,
                         const Answer& answer,
                         bool measured) {
    PlacementResult result{.size = p.k,
                           .count = p.g,
                           .method = answer.method,
                           .exact = answer.exact,
                           .upper_bound = answer.upper_bound,
                           .nodes = answer.nodes,
                           .measured = measured};
    for (const auto& group : answer.groups) {
        result.groups.push_back(describe(topology, p, group));
    }
    // The group holding the required GPUs is "the first group".
    std::stable_partition(result.groups.begin(), result.groups.end(), [](const PlacedGroup& g) {
        return g.required;
    });
    for (int v : placement::leftover_of(p, answer.groups)) {
        result.leftover.push_back(placement::at(p.ids, v));
    }
    result.objective = placement::evaluate(p, answer.groups);
    const bool bounded =
        result.upper_bound != kUnlimited && result.objective.min_bottleneck != kUnlimited;
    result.gap = bounded ? result.upper_bound - result.objective.min_bottleneck : 0;
    result.bound = bound_of(result, answer);
    return result;
}

}  // namespace

std::optional<std::string_view> open_term(const PlacementResult& result) {
    if (result.exact) {
        return std::nullopt;
    }
    const PlacementObjective& found = result.objective;
    const PlacementObjective& bound = result.bound;
    if (bound.min_bottleneck != found.min_bottleneck) {
        return "min_bottleneck";
    }
    if (bound.sum_bottleneck != found.sum_bottleneck) {
        return "sum_bottleneck";
    }
    if (bound.sum_pair_weight != found.sum_pair_weight) {
        return "sum_pair_weight";
    }
    if (bound.numa_spans != found.numa_spans) {
        return "numa_spans";
    }
    return "tie_break";
}

util::Expected<PlacementResult> place(const model::Topology& topology,
                                      const PlacementRequest& request) {
    auto problem = placement::build_problem(topology, request);
    if (!problem) {
        return util::unexpected(problem.error());
    }
    const Answer answer = solve(*problem, request.node_budget);
    return describe(topology, *problem, answer, request.bandwidth.has_value());
}

}  // namespace peergate::policy::placement
