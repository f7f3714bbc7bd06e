// SPDX-License-Identifier: Apache-2.0
// The one GPU-list grammar (model/gpu_list.hpp): the same answers and messages for every
// option that takes a list (gate, probe, bench, place, doctor).
#include "model/gpu_list.hpp"

#include <gtest/gtest.h>

namespace peergate::model {
namespace {

TEST(GpuList, AllIsNulloptAndAListKeepsItsOrder) {
    const auto all = parse_gpu_list(" all ");
    ASSERT_TRUE(all.has_value());
    EXPECT_FALSE(all->has_value());
    const auto list = parse_gpu_list("3, 0,1");
    ASSERT_TRUE(list.has_value());
    EXPECT_EQ(**list, (std::vector<int>{3, 0, 1}));
}

TEST(GpuList, AnEmptyListADuplicateAndJunkAreRefusedNamingTheOption) {
    const auto empty = parse_gpu_list("", "--require");
    ASSERT_FALSE(empty.has_value());
    EXPECT_EQ(empty.error().message,
              "--require is empty: give nvidia-smi indices such as 0,1,3 or 'all'");
    const auto twice = parse_gpu_list("0,0");
    ASSERT_FALSE(twice.has_value());
    EXPECT_EQ(twice.error().message, "--gpus '0,0': GPU 0 is listed twice");
    for (const char* bad : {"0,,1", "-1", "1x", "4096", "0;1"}) {
        EXPECT_FALSE(parse_gpu_list(bad).has_value()) << bad;
    }
    EXPECT_TRUE(parse_gpu_list("4095").has_value());
}

}  // namespace
}  // namespace peergate::model
