// SPDX-License-Identifier: Apache-2.0
// Implementation of the test helpers (placement_support.hpp) and tests of the helpers.
#include "placement_support.hpp"

#include "policy/placement/bounds.hpp"
#include "policy/placement/exact.hpp"
#include "policy/placement/heuristic.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <climits>
#include <set>
#include <tuple>

namespace peergate::placement_test {

namespace {

using Weight = policy::placement::Weight;

// The objective's weight table, written out independently of the code under test.
Weight weight_of(const model::LinkLabel& label) {
    if (label.kind == model::LinkKind::nvlink) {
        return 1000 + label.nvlinks;
    }
    switch (label.kind) {
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
        default:
            return -1;
    }
}

policy::placement::PlacementObjective score(const model::Topology& t,
                                            const std::vector<std::vector<int>>& groups) {
    policy::placement::PlacementObjective objective{.min_bottleneck = policy::placement::kUnlimited,
                                                    .sum_bottleneck = 0};
    for (const auto& group : groups) {
        Weight bottleneck = policy::placement::kUnlimited;
        std::set<int> nodes;
        for (std::size_t i = 0; i < group.size(); ++i) {
            nodes.insert(t.gpus[*t.position_of(group[i])].numa_node.value_or(INT_MIN));
            for (std::size_t j = i + 1; j < group.size(); ++j) {
                const Weight w = weight_of(*t.label(group[i], group[j]));
                bottleneck = std::min(bottleneck, w);
                objective.sum_pair_weight += w;
            }
        }
        objective.min_bottleneck = std::min(objective.min_bottleneck, bottleneck);
        objective.sum_bottleneck = bottleneck == policy::placement::kUnlimited
                                       ? policy::placement::kUnlimited
                                       : objective.sum_bottleneck + bottleneck;
        objective.numa_spans += static_cast<int>(nodes.size());
    }
    return objective;
}

auto key(const policy::placement::PlacementObjective& o) {
    return std::make_tuple(o.min_bottleneck, o.sum_bottleneck, o.sum_pair_weight, -o.numa_spans);
}

struct Enumerator {
    const model::Topology& t;
    int size;
    int count;
    std::vector<int> candidates;
    std::vector<int> required;
    std::optional<Brute> best;
    std::vector<std::vector<int>> groups;
    std::vector<char> used;
    int visited = 0;

    bool required_ok() const {
        return std::any_of(groups.begin(), groups.end(), [&](const std::vector<int>& g) {
            return std::all_of(required.begin(), required.end(), [&](int r) {
                return std::find(g.begin(), g.end(), r) != g.end();
            });
        });
    }

    void finish() {
        ++visited;
        if (!required.empty() && !required_ok()) {
            return;
        }
        auto sorted = groups;
        std::sort(sorted.begin(), sorted.end());
        const auto objective = score(t, sorted);
        if (!best || key(objective) > key(best->objective) ||
            (key(objective) == key(best->objective) && sorted < best->groups)) {
            best = Brute{objective, sorted};
        }
    }

    // Fills the current group from candidate position `from` on; groups start at
    // increasing smallest members so each placement is visited once.
    void fill(std::vector<int>& group, std::size_t from, std::size_t first_min) {
        if (static_cast<int>(group.size()) == size) {
            groups.push_back(group);
            next(first_min);
            groups.pop_back();
            return;
        }
        for (std::size_t i = from; i < candidates.size(); ++i) {
            if (used[i]) {
                continue;
            }
            used[i] = 1;
            group.push_back(candidates[i]);
            fill(group, i + 1, group.size() == 1 ? i : first_min);
            group.pop_back();
            used[i] = 0;
        }
    }

    void next(std::size_t previous_min) {
        if (static_cast<int>(groups.size()) == count) {
            finish();
            return;
        }
        std::vector<int> group;
        const std::size_t start = groups.empty() ? 0 : previous_min + 1;
        for (std::size_t i = start; i < candidates.size(); ++i) {
            if (!used[i]) {
                used[i] = 1;
                group = {candidates[i]};
                fill(group, i + 1, i);
                used[i] = 0;
            }
        }
    }
};

const char* const kLabels[] = {"NV1",  "NV2",  "NV3",  "NV4",  "NV5",  "NV6",  "NV7",  "NV8",
                               "NV9",  "NV10", "NV11", "NV12", "NV13", "NV14", "NV15", "NV16",
                               "NV17", "NV18", "PIX",  "PXB",  "PHB",  "NODE", "SYS"};

}  // namespace

model::Topology topology_from(const std::vector<std::vector<std::string>>& tokens,
                              const std::vector<std::optional<int>>& numa) {
    model::Topology t;
    t.source = model::TopologySource::file;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        t.gpus.push_back(model::Gpu{.index = static_cast<int>(i), .numa_node = numa[i]});
        std::vector<model::LinkLabel> row;
        for (const auto& token : tokens[i]) {
            row.push_back(*model::LinkLabel::parse(token));
        }
        t.matrix.push_back(std::move(row));
    }
    return t;
}

model::Topology random_topology(std::mt19937& rng, int n) {
    std::vector<std::vector<std::string>> tokens(
        static_cast<std::size_t>(n), std::vector<std::string>(static_cast<std::size_t>(n), "X"));
    std::uniform_int_distribution<int> label(0, 22);
    std::uniform_int_distribution<int> node(-1, 2);
    std::vector<std::optional<int>> numa;
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        for (std::size_t j = i + 1; j < tokens.size(); ++j) {
            tokens[i][j] = tokens[j][i] = kLabels[label(rng)];
        }
        const int drawn = node(rng);
        numa.push_back(drawn < 0 ? std::nullopt : std::optional<int>(drawn));
    }
    return topology_from(tokens, numa);
}

std::optional<policy::placement::PlacementRequest> random_request(
    std::mt19937& rng, int n, int min_size, int max_size, int max_required) {
    policy::placement::PlacementRequest request{
        .size = std::uniform_int_distribution<int>(min_size, max_size)(rng)};
    for (int v = 0; v < n; ++v) {
        if (std::uniform_int_distribution<int>(0, 4)(rng) != 0) {
            request.candidates.push_back(v);
        }
    }
    const int available = static_cast<int>(request.candidates.size());
    if (available < request.size) {
        return std::nullopt;
    }
    request.count = std::uniform_int_distribution<int>(1, available / request.size)(rng);
    std::shuffle(request.candidates.begin(), request.candidates.end(), rng);
    const int required =
        std::uniform_int_distribution<int>(0, std::min(max_required, request.size))(rng);
    request.required.assign(request.candidates.begin(), request.candidates.begin() + required);
    return request;
}

std::string describe(const policy::placement::PlacementRequest& request) {
    std::string what = "K " + std::to_string(request.size) + " G " +
                       (request.count ? std::to_string(*request.count) : std::string("default")) +
                       " gpus";
    for (int v : request.candidates) {
        what += " " + std::to_string(v);
    }
    what += " require";
    for (int v : request.required) {
        what += " " + std::to_string(v);
    }
    return what;
}

void expect_place_matches_brute_force(const model::Topology& topology,
                                      const policy::placement::PlacementRequest& request,
                                      const std::string& what) {
    const int count = request.count.value_or(
        static_cast<int>(request.candidates.empty() ? topology.size() : request.candidates.size()) /
        request.size);
    const auto brute =
        brute_force(topology, request.size, count, request.candidates, request.required);
    const auto result = policy::placement::place(topology, request);
    ASSERT_EQ(brute.has_value(), result.has_value()) << what;
    if (!brute) {
        return;
    }
    EXPECT_TRUE(result->exact) << what;
    EXPECT_EQ(result->objective, brute->objective) << what;
    EXPECT_EQ(result->bound, result->objective) << what << ": an exact answer is its own bound";
    EXPECT_EQ(sorted_groups(*result), brute->groups) << what;
}

void expect_exact_search_matches_brute_force(const model::Topology& t,
                                             const policy::placement::PlacementRequest& request,
                                             const std::string& what,
                                             policy::placement::Searches searches) {
    const auto problem = policy::placement::build_problem(t, request);
    const int count = request.count.value_or(
        static_cast<int>(request.candidates.empty() ? t.size() : request.candidates.size()) /
        request.size);
    const auto brute = brute_force(t, request.size, count, request.candidates, request.required);
    ASSERT_EQ(problem.has_value(), brute.has_value()) << what;
    if (!brute || problem->k == 1) {
        return;
    }
    const auto ceiling = policy::placement::first_component_bound(*problem);
    const auto start = policy::placement::heuristic_placement(*problem, ceiling);
    const auto solved =
        policy::placement::solve_exactly(*problem, start, ceiling, 10'000'000, searches);
    ASSERT_TRUE(solved.exact) << what;
    EXPECT_EQ(policy::placement::evaluate(*problem, solved.groups), brute->objective) << what;
    std::vector<std::vector<int>> ids;
    for (const auto& group : solved.groups) {
        auto& mapped = ids.emplace_back();
        for (int v : group) {
            mapped.push_back(policy::placement::at(problem->ids, v));
        }
    }
    std::sort(ids.begin(), ids.end());
    EXPECT_EQ(ids, brute->groups) << what;
}

std::optional<Brute> brute_force(const model::Topology& topology,
                                 int size,
                                 int count,
                                 std::vector<int> candidates,
                                 const std::vector<int>& required) {
    if (candidates.empty()) {
        for (const auto& gpu : topology.gpus) {
            candidates.push_back(gpu.index);
        }
    }
    std::sort(candidates.begin(), candidates.end());
    Enumerator e{topology,
                 size,
                 count,
                 candidates,
                 required,
                 std::nullopt,
                 {},
                 std::vector<char>(candidates.size(), 0)};
    e.next(0);
    return e.best;
}

std::vector<std::vector<int>> sorted_groups(const policy::placement::PlacementResult& result) {
    std::vector<std::vector<int>> groups;
    for (const auto& group : result.groups) {
        groups.push_back(group.gpus);
    }
    std::sort(groups.begin(), groups.end());
    return groups;
}

int count_placements(int n, int size, int count) {
    std::mt19937 rng(7);
    const auto t = random_topology(rng, n);
    std::vector<int> all;
    for (int i = 0; i < n; ++i) {
        all.push_back(i);
    }
    Enumerator e{t,
                 size,
                 count,
                 all,
                 {},
                 std::nullopt,
                 {},
                 std::vector<char>(static_cast<std::size_t>(n), 0)};
    e.next(0);
    return e.visited;
}

TEST(PlacementBruteForce, VisitsEveryPlacementOnce) {
    EXPECT_EQ(count_placements(8, 2, 4), 105);  // 7*5*3*1, go-gpuallocator's figure for 8 GPUs
    EXPECT_EQ(count_placements(8, 4, 2), 35);   // C(8,4)/2
    EXPECT_EQ(count_placements(6, 2, 2), 45);   // C(6,2)*C(4,2)/2, two GPUs left over
    EXPECT_EQ(count_placements(5, 3, 1), 10);   // C(5,3)
}

}  // namespace peergate::placement_test
