// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/objective.hpp"

#include <algorithm>
#include <tuple>

namespace peergate::policy::placement {

Weight link_weight(const model::LinkLabel& label) {
    switch (label.kind) {
        case model::LinkKind::nvlink:
            return 1000 + label.nvlinks;
        case model::LinkKind::pix:
            return 50;
        case model::LinkKind::pxb:
            return 40;
        case model::LinkKind::phb:
            return 30;
        case model::LinkKind::node:
            return 20;
        case model::LinkKind::sys:
            return 10;
        case model::LinkKind::self:
        case model::LinkKind::unknown:
            return 0;
    }
    return 0;
}

bool better(const PlacementObjective& a, const PlacementObjective& b) {
    // Spans are minimised: negate them so the whole tuple is "more is better".
    return std::make_tuple(a.min_bottleneck, a.sum_bottleneck, a.sum_pair_weight, -a.numa_spans) >
           std::make_tuple(b.min_bottleneck, b.sum_bottleneck, b.sum_pair_weight, -b.numa_spans);
}

std::string_view to_string(PlacementMethod method) {
    switch (method) {
        case PlacementMethod::trivial:
            return "trivial";
        case PlacementMethod::uniform:
            return "uniform";
        case PlacementMethod::exact:
            return "branch_and_bound";
        case PlacementMethod::heuristic:
            return "heuristic";
    }
    return "heuristic";
}

}  // namespace peergate::policy::placement

namespace peergate::policy::placement {

GroupStats group_stats(const Problem& problem, const std::vector<int>& group) {
    GroupStats stats;
    std::vector<int> classes;
    for (std::size_t i = 0; i < group.size(); ++i) {
        classes.push_back(at(problem.numa, group[i]));
        for (std::size_t j = i + 1; j < group.size(); ++j) {
            const Weight w = problem.w(group[i], group[j]);
            stats.weight_sum += w;
            if (w < stats.bottleneck) {
                stats.bottleneck = w;
                stats.low_a = std::min(group[i], group[j]);
                stats.low_b = std::max(group[i], group[j]);
            }
        }
    }
    std::sort(classes.begin(), classes.end());
    stats.spans = static_cast<int>(std::unique(classes.begin(), classes.end()) - classes.begin());
    return stats;
}

PlacementObjective evaluate(const Problem& problem, const Groups& groups) {
    PlacementObjective objective{.min_bottleneck = kUnlimited, .sum_bottleneck = 0};
    for (const auto& group : groups) {
        const GroupStats stats = group_stats(problem, group);
        objective.min_bottleneck = std::min(objective.min_bottleneck, stats.bottleneck);
        objective.sum_bottleneck = stats.bottleneck == kUnlimited
                                       ? kUnlimited
                                       : objective.sum_bottleneck + stats.bottleneck;
        objective.sum_pair_weight += stats.weight_sum;
        objective.numa_spans += stats.spans;
    }
    return objective;
}

Score score_of(const GroupStats& stats) {
    return {stats.bottleneck, 2 * stats.weight_sum, -static_cast<Weight>(stats.spans)};
}

Score score_of(const PlacementObjective& objective) {
    return {objective.sum_bottleneck,
            2 * objective.sum_pair_weight,
            -static_cast<Weight>(objective.numa_spans)};
}

}  // namespace peergate::policy::placement
