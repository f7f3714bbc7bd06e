// SPDX-License-Identifier: Apache-2.0
// The public C++ API (include/peergate/gate.hpp).
#include "peergate/gate.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <string>

namespace {

peergate::Environment bridged_host_env() {
    return {{"PATH", "/usr/bin:/bin"},
            {"PEERGATE_NVML_LIB", "/nonexistent/libnvidia-ml.so.1"},
            {"PEERGATE_NVIDIA_SMI", std::string(PEERGATE_TEST_SCRIPTS) + "/smi_bridged_a100_4x.sh"},
            {"PEERGATE_HOST_ROOT", std::string(PEERGATE_TEST_FIXTURES) + "/host/bare-metal-dma"}};
}

std::optional<std::string> value_of(const peergate::Environment& env, const std::string& name) {
    const auto at = env.find(name);
    return at != env.end() ? std::optional<std::string>(at->second) : std::nullopt;
}

// identity-mixed-4x: CUDA ordinals 0,1 are nvidia-smi GPUs 2,3 (NV12); the library asks the
// peergate installed beside it (the build tree's bin/peergate) which GPUs the child sees.
TEST(GateApi, ApplyJoinsOnIdentityThroughThePeergateInstalledBesideIt) {
    peergate::Environment env = {
        {"PATH", "/usr/bin:/bin"},
        {"PEERGATE_SIMULATE",
         std::string(PEERGATE_TEST_FIXTURES) + "/machines/identity-mixed-4x.json"},
        {"CUDA_VISIBLE_DEVICES", "0,1"}};
    const auto d = peergate::apply(env, {});
    EXPECT_EQ(d.selection_source, "cuda_identity") << d.reason;
    EXPECT_EQ(d.selection, (std::vector<int>{2, 3}));
    EXPECT_FALSE(env.contains("PEERGATE_SIM_MACHINE"));  // the caller's environment stays its own
}

TEST(GateApi, ApplyPlacesTheBestGroupWhenAskedForASize) {
    auto env = bridged_host_env();
    const auto d = peergate::apply(env,
                                   {.selection = peergate::Selection::list({1, 2, 3}),
                                    .profile = peergate::Profile::nccl,
                                    .place = 2});
    EXPECT_EQ(d.selection, (std::vector<int>{2, 3})) << d.reason;
    EXPECT_EQ(value_of(env, "CUDA_VISIBLE_DEVICES"), "2,3");
    // A placement that cannot be made vetoes P2P and says why.
    auto too_many = bridged_host_env();
    const auto vetoed = peergate::apply(too_many, {.place = 9});
    EXPECT_FALSE(vetoed.p2p);
    EXPECT_NE(vetoed.veto.find("9"), std::string::npos) << vetoed.veto;
}

TEST(GateApi, ApplyDiscoversDecidesAndRewritesTheEnvironment) {
    auto env = bridged_host_env();
    env["GGML_CUDA_P2P"] = "false";
    const auto d = peergate::apply(env, {.selection = peergate::Selection::list({2, 3})});
    EXPECT_FALSE(d.p2p);  // the user's off value is an opt-out
    EXPECT_FALSE(env.contains("GGML_CUDA_P2P"));
    EXPECT_EQ(value_of(env, "CUDA_VISIBLE_DEVICES"), "2,3");
    EXPECT_EQ(value_of(env, "CUDA_DEVICE_ORDER"), "PCI_BUS_ID");

    auto clean = bridged_host_env();
    const auto allowed = peergate::apply(clean, {.selection = peergate::Selection::list({2, 3})});
    EXPECT_TRUE(allowed.p2p) << allowed.reason;
    EXPECT_EQ(value_of(clean, "GGML_CUDA_P2P"), "1");
    EXPECT_EQ(allowed.iommu, "translating");
    EXPECT_NE(allowed.json.find("\"schema\":\"peergate.gate/v1\""), std::string::npos);

    auto across = bridged_host_env();
    const auto vetoed = peergate::apply(
        across,
        {.selection = peergate::Selection::list({1, 2}), .profile = peergate::Profile::nccl});
    EXPECT_EQ(vetoed.veto,
              "GPU 1 to GPU 2 is SYS, not NVLink; bare-metal Linux with a translating IOMMU, "
              "where CUDA does not support PCIe peer copies at all");
    EXPECT_EQ(value_of(across, "NCCL_P2P_LEVEL"), "NVL");
}

TEST(GateApi, ApplyNeverFailsABrokenHost) {
    peergate::Environment env = {
        {"PEERGATE_NVML_LIB", "/nonexistent/libnvidia-ml.so.1"},
        {"PEERGATE_NVIDIA_SMI", std::string(PEERGATE_TEST_SCRIPTS) + "/smi_broken.sh"},
        {"PEERGATE_SIMULATE", "no-such-machine"}};
    const auto d = peergate::apply(env);
    EXPECT_FALSE(d.p2p);
    EXPECT_EQ(d.rule, "decision_failed");
}

TEST(GateApi, AnOffValueIsRemovedAndSaysWhy) {
    auto env = bridged_host_env();
    env["GGML_CUDA_P2P"] = "0";
    const auto d = peergate::apply(env, {.selection = peergate::Selection::list({2, 3})});
    EXPECT_FALSE(d.p2p);
    EXPECT_TRUE(d.unsets("GGML_CUDA_P2P"));
    EXPECT_EQ(d.profile, peergate::Profile::llama_cpp);
}

}  // namespace
