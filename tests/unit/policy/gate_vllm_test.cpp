// SPDX-License-Identifier: Apache-2.0
// The vllm profile and vLLM's own P2P cache: vLLM tests each pair once with one small copy,
// keeps the answer in a file and trusts it from then on, so a cache that says "works" on a
// fabric the gate vetoes makes VLLM_SKIP_P2P_CHECK=0 moot, and the gate says so.
#include "gate_test_support.hpp"
#include "policy/gate/gate.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::gate {
namespace {

using namespace peergate::test;  // NOLINT(google-build-using-namespace)

constexpr const char* kCacheWarning = "which says peer access works";
constexpr const char* kFlagWarning = "also pass --disable-custom-all-reduce";

VllmP2pCache cache_for(const std::string& devices, std::vector<std::string> works) {
    return VllmP2pCache{.path = "/home/u/.cache/vllm/gpu_p2p_access_cache_for_" + devices + ".json",
                        .visible_devices = devices,
                        .says_works = std::move(works)};
}

GateInput vllm_on_pcie(Selection selection, util::EnvMap e = {}) {
    auto in = input(pcie_box(2, "NVIDIA L40S"), std::move(selection), std::move(e));
    in.profile = Profile::vllm;
    return in;
}

TEST(GateVllm, ACacheThatSaysPeerAccessWorksIsNamedWithItsPairs) {
    auto in = vllm_on_pcie(gpus({0, 1}));
    in.vllm_p2p_caches = {cache_for("0,1", {"0->0", "0->1", "1->0", "1->1"})};
    const auto d = decide(in);
    EXPECT_FALSE(d.p2p);
    EXPECT_TRUE(warns_about(d,
                            "gpu_p2p_access_cache_for_0,1.json, which says peer access works "
                            "(0->1, 1->0)"))
        << ::testing::PrintToString(d.warnings);
    EXPECT_TRUE(warns_about(d, kFlagWarning));
}

TEST(GateVllm, OnlyTheCacheNamedAfterTheChildsDevicesCounts) {
    auto pinned = vllm_on_pcie(gpus({0, 1}));  // the launch sets CUDA_VISIBLE_DEVICES=0,1
    pinned.vllm_p2p_caches = {cache_for("1,0", {"0->1"}), cache_for("0", {"0->1"})};
    EXPECT_FALSE(warns_about(decide(pinned), kCacheWarning));

    auto inherited = vllm_on_pcie({}, env({{"CUDA_VISIBLE_DEVICES", "1,0"}}));
    inherited.vllm_p2p_caches = {cache_for("1,0", {"0->1"})};
    EXPECT_TRUE(warns_about(decide(inherited), kCacheWarning));

    auto unset = vllm_on_pcie({});  // vLLM then names the file after every device: "0,1"
    unset.vllm_p2p_caches = {cache_for("0,1", {"1->0"})};
    EXPECT_TRUE(warns_about(decide(unset), kCacheWarning));
}

TEST(GateVllm, ACacheOfSelfPairsOrFalseAnswersSaysNothing) {
    auto in = vllm_on_pcie(gpus({0, 1}));
    in.vllm_p2p_caches = {cache_for("0,1", {"0->0", "1->1"})};
    EXPECT_FALSE(warns_about(decide(in), kCacheWarning));
}

// With the custom all-reduce off, vLLM never asks its cache, and the flag warning is moot.
TEST(GateVllm, TheFlagOnTheCommandLineSilencesBoth) {
    for (const char* flag : {"--disable-custom-all-reduce", "--disable_custom_all_reduce"}) {
        SCOPED_TRACE(flag);
        auto in = vllm_on_pcie(gpus({0, 1}));
        in.vllm_p2p_caches = {cache_for("0,1", {"0->1"})};
        in.child_argv = {"vllm", "serve", "model", "--tensor-parallel-size", "2", flag};
        const auto d = decide(in);
        EXPECT_FALSE(warns_about(d, kCacheWarning));
        EXPECT_FALSE(warns_about(d, kFlagWarning));
        EXPECT_EQ(d.set_value("VLLM_SKIP_P2P_CHECK"), "0");
    }
}

TEST(GateVllm, OnNvlinkTheCacheIsNotAConcern) {
    auto in = input(uniform_nvlink(2), gpus({0, 1}));
    in.profile = Profile::vllm;
    in.vllm_p2p_caches = {cache_for("0,1", {"0->1", "1->0"})};
    const auto d = decide(in);
    EXPECT_TRUE(d.p2p);
    EXPECT_TRUE(d.warnings.empty());
}

// One GPU has no tensor-parallel peer: nothing to keep vLLM testing, nothing to warn of.
TEST(GateVllm, ASingleGpuNeedsNothing) {
    auto in = vllm_on_pcie(gpus({1}));
    in.vllm_p2p_caches = {cache_for("1", {"1->1"})};
    const auto d = decide(in);
    EXPECT_FALSE(d.p2p);
    EXPECT_FALSE(d.set_value("VLLM_SKIP_P2P_CHECK"));
    EXPECT_FALSE(d.set_value("VLLM_ALLREDUCE_USE_SYMM_MEM"));
    EXPECT_FALSE(warns_about(d, kFlagWarning));
}

}  // namespace
}  // namespace peergate::policy::gate
