// SPDX-License-Identifier: Apache-2.0
// The sglang profile. SGLang's custom all-reduce is adapted from vLLM's: on PCIe it runs for
// two GPUs after a one-copy P2P check whose answer SGLang keeps in
// ~/.cache/sglang/gpu_p2p_access_cache_for_<CUDA_VISIBLE_DEVICES>.json and trusts from then
// on; SGLANG_SKIP_P2P_CHECK=1 trusts the driver instead; --disable-custom-all-reduce is the
// only switch (sgl-project/sglang, custom_all_reduce_utils.py and server_args.py).
#include "gate_test_support.hpp"
#include "policy/gate/gate.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace peergate::policy::gate {
namespace {

using namespace peergate::test;  // NOLINT(google-build-using-namespace)

GateInput sglang_tp2_on_pcie(util::EnvMap e = {}) {
    auto in = input(pcie_box(2, "NVIDIA RTX 6000 Ada Generation"), gpus({0, 1}), std::move(e));
    in.profile = Profile::sglang;
    return in;
}

TEST(GateSglang, AVetoKeepsSglangTestingAndAsksForTheFlag) {
    const auto d = decide(sglang_tp2_on_pcie());
    EXPECT_FALSE(d.p2p);
    EXPECT_EQ(d.set_value("SGLANG_SKIP_P2P_CHECK"), "0");
    EXPECT_FALSE(d.set_value("VLLM_SKIP_P2P_CHECK"));  // vLLM's profile only
    EXPECT_FALSE(d.set_value("NCCL_P2P_LEVEL"));
    EXPECT_TRUE(warns_about(d, "SGLang: also pass --disable-custom-all-reduce"));
}

TEST(GateSglang, AnInheritedSkipIsKeptAndReported) {
    const auto d = decide(sglang_tp2_on_pcie(env({{"SGLANG_SKIP_P2P_CHECK", "1"}})));
    EXPECT_FALSE(d.set_value("SGLANG_SKIP_P2P_CHECK"));
    EXPECT_EQ(d.kept_value("SGLANG_SKIP_P2P_CHECK"), "1");
}

TEST(GateSglang, SglangsOwnCacheIsNamedAndTheFlagSilencesBoth) {
    auto in = sglang_tp2_on_pcie();
    in.sglang_p2p_caches = {{.path = "/home/u/.cache/sglang/gpu_p2p_access_cache_for_0,1.json",
                             .visible_devices = "0,1",
                             .says_works = {"0->0", "0->1", "1->0", "1->1"}}};
    auto d = decide(in);
    EXPECT_TRUE(
        warns_about(d,
                    "SGLang will read /home/u/.cache/sglang/gpu_p2p_access_cache_for_0,1.json, "
                    "which says peer access works (0->1, 1->0): SGLang wrote it after one "
                    "small copy and never tests again, so SGLANG_SKIP_P2P_CHECK=0 does not "
                    "apply"))
        << ::testing::PrintToString(d.warnings);
    in.vllm_p2p_caches = in.sglang_p2p_caches;  // vLLM's caches are not SGLang's concern
    in.sglang_p2p_caches.clear();
    EXPECT_FALSE(warns_about(decide(in), "which says peer access works"));
    in.sglang_p2p_caches = in.vllm_p2p_caches;
    in.child_argv = {
        "python3", "-m", "sglang.launch_server", "--tp", "2", "--disable-custom-all-reduce"};
    d = decide(in);
    EXPECT_TRUE(d.warnings.empty()) << ::testing::PrintToString(d.warnings);
}

TEST(GateSglang, NvlinkOrASingleGpuNeedsNothing) {
    auto nvlink = input(uniform_nvlink(8), gpus({0, 1, 2, 3}));
    nvlink.profile = Profile::sglang;
    EXPECT_FALSE(decide(nvlink).set_value("SGLANG_SKIP_P2P_CHECK"));
    auto single = input(pcie_box(2, "NVIDIA L40S"), gpus({1}));
    single.profile = Profile::sglang;
    EXPECT_FALSE(decide(single).set_value("SGLANG_SKIP_P2P_CHECK"));
}

}  // namespace
}  // namespace peergate::policy::gate
