// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/problem.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

namespace peergate::policy::placement {

namespace {

util::Unexpected fail(std::string message) {
    return util::unexpected(util::ErrorCode::invalid_input, std::move(message));
}

util::Expected<std::vector<int>> pick_candidates(const model::Topology& t,
                                                 const PlacementRequest& r) {
    std::vector<int> ids = r.candidates;
    if (ids.empty()) {
        for (const auto& gpu : t.gpus) {
            ids.push_back(gpu.index);
        }
    }
    std::sort(ids.begin(), ids.end());
    for (std::size_t i = 0; i < ids.size(); ++i) {
        if (!t.position_of(ids[i])) {
            return fail(fmt::format("--gpus: GPU {} is not in the topology", ids[i]));
        }
        if (i > 0 && ids[i] == ids[i - 1]) {
            return fail(fmt::format("--gpus: GPU {} is listed twice", ids[i]));
        }
    }
    return ids;
}

util::Expected<void> check_sizes(const Problem& p, const PlacementRequest& r) {
    if (p.k < 1) {
        return fail(fmt::format("--size must be at least 1, not {}", p.k));
    }
    if (r.count && *r.count < 1) {
        return fail(fmt::format("--count must be at least 1, not {}", *r.count));
    }
    if (p.g < 1 || static_cast<long long>(p.k) * p.g > p.n) {
        return fail(
            fmt::format("impossible: {} group(s) of {} need {} GPUs, {} candidate(s) available",
                        std::max(p.g, 1),
                        p.k,
                        static_cast<long long>(p.k) * std::max(p.g, 1),
                        p.n));
    }
    if (p.required_count > p.k) {
        return fail(
            fmt::format("--require: {} GPUs cannot share one group of {}", p.required_count, p.k));
    }
    return {};
}

util::Expected<void> mark_required(Problem& p, const PlacementRequest& r) {
    p.required.assign(static_cast<std::size_t>(p.n), 0);
    for (int id : r.required) {
        const auto it = std::lower_bound(p.ids.begin(), p.ids.end(), id);
        if (it == p.ids.end() || *it != id) {
            return fail(fmt::format("--require: GPU {} is not among the candidates", id));
        }
        auto& flag = p.required[static_cast<std::size_t>(it - p.ids.begin())];
        if (flag != 0) {
            return fail(fmt::format("--require: GPU {} is listed twice", id));
        }
        flag = 1;
        ++p.required_count;
    }
    return {};
}

void assign_numa(Problem& p, const model::Topology& t) {
    std::map<int, int> classes;  // known node -> class; unknown nodes share class -1 first
    p.numa.clear();
    for (int id : p.ids) {
        const auto node = t.gpus[*t.position_of(id)].numa_node;
        classes.emplace(node.value_or(-1), 0);
    }
    int next = 0;
    for (auto& [node, cls] : classes) {
        cls = next++;
    }
    for (int id : p.ids) {
        p.numa.push_back(classes[t.gpus[*t.position_of(id)].numa_node.value_or(-1)]);
    }
    p.numa_classes = next;
}

using Measured = std::map<std::pair<int, int>, double>;  // directed, best sample per direction

util::Expected<Measured> measured_by_direction(const std::vector<BandwidthSample>& samples) {
    Measured best;
    for (const auto& s : samples) {
        if (!std::isfinite(s.gbps) || s.gbps < 0) {
            return fail(fmt::format("bandwidth: GPU {} to GPU {} has no valid GB/s", s.src, s.dst));
        }
        auto [it, fresh] = best.emplace(std::make_pair(s.src, s.dst), s.gbps);
        if (!fresh) {
            it->second = std::max(it->second, s.gbps);
        }
    }
    return best;
}

// The slower direction of the pair, as an integer in hundredths of a GB/s.
util::Expected<Weight> measured_weight(const Measured& m, int a, int b) {
    const auto ab = m.find({a, b});
    const auto ba = m.find({b, a});
    if (ab == m.end() && ba == m.end()) {
        return fail(fmt::format("bandwidth: no measurement between GPU {} and GPU {}", a, b));
    }
    double slower = ab != m.end() ? ab->second : ba->second;
    if (ab != m.end() && ba != m.end()) {
        slower = std::min(ab->second, ba->second);
    }
    return static_cast<Weight>(std::llround(slower * static_cast<double>(kBandwidthScale)));
}

// Topology::label for positions rather than GPU indices.
std::optional<model::LinkLabel> label_between(const model::Topology& t,
                                              std::size_t a,
                                              std::size_t b) {
    if (a >= t.matrix.size() || b >= t.matrix[a].size()) {
        return std::nullopt;
    }
    return t.matrix[a][b];
}

util::Expected<void> fill_weights(Problem& p, const model::Topology& t, const PlacementRequest& r) {
    Measured measured;
    if (r.bandwidth) {
        auto parsed = measured_by_direction(*r.bandwidth);
        if (!parsed) {
            return util::unexpected(parsed.error());
        }
        measured = std::move(*parsed);
    }
    p.weight.assign(static_cast<std::size_t>(p.n) * static_cast<std::size_t>(p.n), 0);
    // Positions in the topology once, not per pair (a linear search each: 8M steps at n = 256).
    std::vector<std::size_t> position;
    for (int id : p.ids) {
        position.push_back(*t.position_of(id));  // checked by pick_candidates
    }
    for (int a = 0; a < p.n; ++a) {
        for (int b = a + 1; b < p.n; ++b) {
            const auto label = label_between(t, at(position, a), at(position, b));
            Weight value = label ? link_weight(*label) : 0;
            if (value == 0) {
                return fail(fmt::format(
                    "topology: GPU {} to GPU {} has no usable label", at(p.ids, a), at(p.ids, b)));
            }
            if (r.bandwidth) {
                auto slower = measured_weight(measured, at(p.ids, a), at(p.ids, b));
                if (!slower) {
                    return util::unexpected(slower.error());
                }
                value = *slower;
            }
            p.weight[p.cell(a, b)] = value;
            p.weight[p.cell(b, a)] = value;
        }
    }
    return {};
}

}  // namespace

util::Expected<Problem> build_problem(const model::Topology& topology,
                                      const PlacementRequest& request) {
    Problem p;
    auto ids = pick_candidates(topology, request);
    if (!ids) {
        return util::unexpected(ids.error());
    }
    p.ids = std::move(*ids);
    p.n = static_cast<int>(p.ids.size());
    p.k = request.size;
    p.g = request.count.value_or(p.k > 0 ? p.n / p.k : 0);
    PEERGATE_TRY(mark_required(p, request));
    PEERGATE_TRY(check_sizes(p, request));
    assign_numa(p, topology);
    PEERGATE_TRY(fill_weights(p, topology, request));
    return p;
}

std::vector<Weight> distinct_weights(const Problem& p) {
    std::set<Weight> seen;
    for (int a = 0; a < p.n; ++a) {
        for (int b = a + 1; b < p.n; ++b) {
            seen.insert(p.w(a, b));
        }
    }
    return {seen.begin(), seen.end()};
}

bool uniform_weights(const Problem& p) {
    return p.n >= 2 && distinct_weights(p).size() == 1;
}

Problem sub_problem(const Problem& p, const std::vector<int>& positions, int groups) {
    Problem sub{.n = static_cast<int>(positions.size()),
                .k = p.k,
                .g = groups,
                .numa_classes = p.numa_classes};
    for (int a : positions) {
        sub.ids.push_back(at(p.ids, a));
        sub.numa.push_back(at(p.numa, a));
        sub.required.push_back(at(p.required, a));
        sub.required_count += p.is_required(a) ? 1 : 0;
        for (int b : positions) {
            sub.weight.push_back(p.w(a, b));
        }
    }
    return sub;
}

std::vector<int> leftover_of(const Problem& p, const Groups& groups) {
    std::vector<char> placed(static_cast<std::size_t>(p.n), 0);
    for (const auto& group : groups) {
        for (int v : group) {
            at(placed, v) = 1;
        }
    }
    std::vector<int> left;
    for (int v = 0; v < p.n; ++v) {
        if (at(placed, v) == 0) {
            left.push_back(v);
        }
    }
    return left;
}

void normalise(Groups& groups) {
    for (auto& group : groups) {
        std::sort(group.begin(), group.end());
    }
    std::sort(groups.begin(), groups.end());
}

}  // namespace peergate::policy::placement
