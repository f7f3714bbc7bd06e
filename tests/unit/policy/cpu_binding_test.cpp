// SPDX-License-Identifier: Apache-2.0
// exec --bind-cpus: the CPUs near the gated GPUs that this process may use
// (policy/launch/cpu_binding.cpp).
#include "policy/launch/cpu_binding.hpp"

#include "gate_test_support.hpp"

#include <gtest/gtest.h>

#include <numeric>

namespace peergate::policy::launch {
namespace {

using test::two_socket_gpus;

std::vector<int> cpus(int first, int last) {
    std::vector<int> out(static_cast<std::size_t>(last - first + 1));
    std::iota(out.begin(), out.end(), first);
    return out;
}

TEST(CpuBinding, TheGpusSocketWhenAllOfItIsAllowed) {
    const auto binding = cpu_binding(two_socket_gpus(), {0, 1}, cpus(0, 191));
    ASSERT_EQ(binding.cpus.size(), 96U);
    EXPECT_EQ(binding.cpus.front(), 0);
    EXPECT_EQ(binding.cpus.back(), 143);
    EXPECT_EQ(binding.why, "CPUs 0-47,96-143, near GPUs 0,1");
}

TEST(CpuBinding, OnlyTheCpusThisProcessMayUse) {
    // A Slurm allocation of CPUs 40-59: the near ones it holds are 40-47.
    const auto binding = cpu_binding(two_socket_gpus(), {2}, cpus(40, 59));
    EXPECT_EQ(binding.cpus, cpus(40, 47));
    EXPECT_NE(binding.why.find("of 0-47,96-143; the others are not allowed"), std::string::npos)
        << binding.why;
}

TEST(CpuBinding, OneGpuIsNamedInTheSingular) {
    EXPECT_EQ(cpu_binding(two_socket_gpus(), {2}, cpus(0, 191)).why,
              "CPUs 0-47,96-143, near GPU 2");
}

TEST(CpuBinding, GpusOnBothSocketsGetBoth) {
    const auto binding = cpu_binding(two_socket_gpus(), {3, 4}, cpus(0, 191));
    EXPECT_EQ(binding.cpus.size(), 192U);
}

TEST(CpuBinding, NoneAllowedIsNoBindingAndSaysWhy) {
    const auto binding = cpu_binding(two_socket_gpus(), {4, 5}, cpus(0, 1));
    EXPECT_TRUE(binding.cpus.empty());
    EXPECT_EQ(binding.why,
              "none of the CPUs near GPUs 4,5 (48-95,144-191) is allowed to this process "
              "(allowed: 0-1)");
}

TEST(CpuBinding, AnUnknownAffinityIsNoBinding) {
    auto gpus = two_socket_gpus();
    gpus[1].cpu_affinity.clear();  // nvidia-smi printed N/A
    const auto binding = cpu_binding(gpus, {0, 1}, cpus(0, 191));
    EXPECT_TRUE(binding.cpus.empty());
    EXPECT_EQ(binding.why, "GPU 1's CPU affinity is unknown");
    EXPECT_TRUE(
        cpu_binding(two_socket_gpus(), {9}, cpus(0, 191)).cpus.empty());  // not a GPU of the host
    EXPECT_TRUE(cpu_binding(two_socket_gpus(), {}, cpus(0, 191)).cpus.empty());
}

// The list is the driver's text: a range as wide as an int is read as ranges, not expanded.
TEST(CpuBinding, AHugeRangeIsNotExpanded) {
    auto gpus = two_socket_gpus();
    gpus[0].cpu_affinity = "0-2000000000";
    EXPECT_EQ(cpu_binding(gpus, {0}, cpus(0, 3)).cpus, cpus(0, 3));
}

}  // namespace
}  // namespace peergate::policy::launch
