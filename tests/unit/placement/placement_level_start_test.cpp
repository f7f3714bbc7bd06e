// SPDX-License-Identifier: Apache-2.0
// The start that fills each level's groups first (level_start.hpp): from the
// level caps' witnesses, the levels below, then the threshold; required GPUs together.
#include "placement_support.hpp"
#include "policy/placement/level_start.hpp"
#include "policy/placement/problem.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace peergate {
namespace {

using placement_test::topology_from;
using Tokens = std::vector<std::vector<std::string>>;

// Twelve GPUs, SYS between all but two NV2 triangles ({0,5,9}, {1,6,10}) and NV1 between
// 2, 3 and 4.
policy::placement::Problem levels_problem(std::vector<int> required = {}) {
    Tokens tokens(12, std::vector<std::string>(12, "SYS"));
    const auto link = [&](int a, int b, const char* token) {
        tokens[static_cast<std::size_t>(a)][static_cast<std::size_t>(b)] = token;
        tokens[static_cast<std::size_t>(b)][static_cast<std::size_t>(a)] = token;
    };
    for (int v = 0; v < 12; ++v) {
        link(v, v, "X");
    }
    for (const auto& [a, b] : {std::pair{0, 5}, {0, 9}, {5, 9}, {1, 6}, {1, 10}, {6, 10}}) {
        link(a, b, "NV2");
    }
    link(2, 3, "NV1");
    link(2, 4, "NV1");
    link(3, 4, "NV1");
    const auto topology = topology_from(tokens, std::vector<std::optional<int>>(12, 0));
    auto problem = policy::placement::build_problem(
        topology, policy::placement::PlacementRequest{.size = 3, .required = std::move(required)});
    EXPECT_TRUE(problem.has_value());
    return *problem;
}

TEST(PlacementLevelStart, EachLevelsGroupsComeFirstThenTheThresholdFillsTheRest) {
    using policy::placement::LevelWitness;
    const auto p = levels_problem();
    const std::vector<LevelWitness> witnesses{{.level = 1002, .groups = {{0, 5, 9}, {1, 6, 10}}},
                                              {.level = 1001, .groups = {{0, 5, 9}, {2, 3, 4}}}};
    const auto start = policy::placement::level_start(p, 10, witnesses, 100'000);
    ASSERT_TRUE(start.groups.has_value());
    ASSERT_EQ(start.groups->size(), 4U);
    EXPECT_EQ((*start.groups)[0], (std::vector<int>{0, 5, 9}));
    EXPECT_EQ((*start.groups)[1], (std::vector<int>{1, 6, 10}));
    EXPECT_EQ((*start.groups)[2], (std::vector<int>{2, 3, 4})) << "NV1 below the NV2 groups";
    EXPECT_EQ(policy::placement::evaluate(p, *start.groups).sum_bottleneck, 2 * 1002 + 1001 + 10);
    EXPECT_GT(start.nodes, 0U);
}

TEST(PlacementLevelStart, RequiredGpusStayTogetherOrTheStartIsNotOffered) {
    using policy::placement::LevelWitness;
    const std::vector<LevelWitness> witnesses{{.level = 1002, .groups = {{0, 5, 9}, {1, 6, 10}}}};
    const auto apart =
        policy::placement::level_start(levels_problem({7, 8}), 10, witnesses, 100'000);
    ASSERT_TRUE(apart.groups.has_value());
    EXPECT_TRUE(std::any_of(apart.groups->begin(), apart.groups->end(), [](const auto& group) {
        return std::find(group.begin(), group.end(), 7) != group.end() &&
               std::find(group.begin(), group.end(), 8) != group.end();
    })) << "the completion seats the required GPUs together";
    const auto split =
        policy::placement::level_start(levels_problem({0, 1}), 10, witnesses, 100'000);
    EXPECT_FALSE(split.groups.has_value()) << "the witness splits GPUs 0 and 1";
    EXPECT_FALSE(policy::placement::level_start(levels_problem(), 10, witnesses, 0).groups)
        << "no budget, no probe";
}

}  // namespace
}  // namespace peergate
