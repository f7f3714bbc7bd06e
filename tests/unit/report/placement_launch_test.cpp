// SPDX-License-Identifier: Apache-2.0
// The launch lines place prints for a group (report/placement/launch.cpp).
#include "report/placement/launch.hpp"

#include <gtest/gtest.h>

namespace peergate::report::placement {
namespace {

model::Topology two_sockets(const std::string& affinity_of_gpu_1) {
    model::Topology t;
    t.gpus = {model::Gpu{.index = 0, .numa_node = 0, .cpu_affinity = "0-19,40-59"},
              model::Gpu{.index = 1, .numa_node = 0, .cpu_affinity = affinity_of_gpu_1},
              model::Gpu{.index = 2, .numa_node = 1, .cpu_affinity = "20-39,60-79"}};
    return t;
}

TEST(PlacementLaunch, OneNodeGetsNumactlAndAnExecThatBindsItsCpusAndMemory) {
    const auto launch =
        launch_for(two_sockets("0-19,40-59"),
                   policy::placement::PlacedGroup{.gpus = {0, 1}, .numa_nodes = {0}},
                   "vllm");
    EXPECT_EQ(launch.env, "CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=0,1");
    EXPECT_EQ(launch.cpu, "numactl --cpunodebind=0 --membind=0");
    EXPECT_EQ(launch.cpu_affinity, "0-19,40-59");
    EXPECT_EQ(launch.exec, "peergate exec --gpus 0,1 --for vllm --bind-cpus --bind-memory -- ...");
}

TEST(PlacementLaunch, TwoNodesGetTasksetOverBoth) {
    const auto launch =
        launch_for(two_sockets("0-19,40-59"),
                   policy::placement::PlacedGroup{.gpus = {0, 2}, .numa_nodes = {0, 1}},
                   "all");
    EXPECT_EQ(launch.cpu, "taskset -c 0-79");
    EXPECT_EQ(launch.exec, "peergate exec --gpus 0,2 --for all --bind-cpus --bind-memory -- ...");
}

TEST(PlacementLaunch, AnUnknownAffinityBindsNothing) {
    const auto launch = launch_for(
        two_sockets(""),
        policy::placement::PlacedGroup{.gpus = {0, 1}, .numa_nodes = {0}, .numa_unknown = true},
        "all");
    EXPECT_EQ(launch.cpu_affinity, "");
    EXPECT_EQ(launch.cpu, "");
    EXPECT_EQ(launch.exec, "peergate exec --gpus 0,1 --for all -- ...");
}

}  // namespace
}  // namespace peergate::report::placement
