// SPDX-License-Identifier: Apache-2.0
// exec --bind-memory: the NUMA nodes of the gated GPUs that this process may allocate from
// (policy/launch/memory_binding.cpp).
#include "policy/launch/memory_binding.hpp"

#include "gate_test_support.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::launch {
namespace {

using test::two_socket_gpus;

TEST(MemoryBinding, TheGpusNodeWhenItIsAllowed) {
    const auto binding = memory_binding(two_socket_gpus(), {0, 1}, {0, 1});
    EXPECT_EQ(binding.nodes, std::vector<int>{0});
    EXPECT_EQ(binding.why, "NUMA node 0, near GPUs 0,1");
}

TEST(MemoryBinding, GpusOnBothSocketsGetBothNodes) {
    const auto binding = memory_binding(two_socket_gpus(), {3, 4}, {0, 1});
    EXPECT_EQ(binding.nodes, (std::vector<int>{0, 1}));
    EXPECT_EQ(binding.why, "NUMA nodes 0,1, near GPUs 3,4");
}

TEST(MemoryBinding, OnlyTheNodesThisProcessMayUse) {
    // A cpuset whose mems hold node 1 only.
    const auto binding = memory_binding(two_socket_gpus(), {3, 4}, {1});
    EXPECT_EQ(binding.nodes, std::vector<int>{1});
    EXPECT_EQ(binding.why,
              "NUMA node 1, near GPUs 3,4 (of 0,1; the others are not allowed to this process)");
}

TEST(MemoryBinding, OneGpuIsNamedInTheSingular) {
    EXPECT_EQ(memory_binding(two_socket_gpus(), {4}, {0, 1}).why, "NUMA node 1, near GPU 4");
    EXPECT_EQ(memory_binding(two_socket_gpus(), {4}, {0}).why,
              "NUMA node 1 of GPU 4 is not allowed to this process (allowed: 0)");
}

TEST(MemoryBinding, NoneWhenTheGpusNodeIsNotAllowed) {
    const auto binding = memory_binding(two_socket_gpus(), {4, 5}, {0});
    EXPECT_TRUE(binding.nodes.empty());
    EXPECT_EQ(binding.why, "NUMA node 1 of GPUs 4,5 is not allowed to this process (allowed: 0)");
}

TEST(MemoryBinding, NoneWhenAGpusNodeIsUnknown) {
    // NVML and sysfs answer -1 where the platform gives no node (one-socket boxes, VMs).
    auto gpus = two_socket_gpus();
    gpus[1].numa_node = -1;
    gpus[2].numa_node.reset();
    for (const auto& selection : {std::vector<int>{0, 1}, std::vector<int>{2}}) {
        const auto binding = memory_binding(gpus, selection, {0, 1});
        EXPECT_TRUE(binding.nodes.empty());
        EXPECT_EQ(binding.why,
                  "GPU " + std::to_string(selection.back()) + "'s NUMA node is unknown");
    }
}

TEST(MemoryBinding, NoneForAGpuNotPresentOrNoSelection) {
    EXPECT_EQ(memory_binding(two_socket_gpus(), {9}, {0, 1}).why, "GPU 9's NUMA node is unknown");
    EXPECT_EQ(memory_binding(two_socket_gpus(), {}, {0, 1}).why, "no GPU selected");
}

}  // namespace
}  // namespace peergate::policy::launch
