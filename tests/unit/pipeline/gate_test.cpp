// SPDX-License-Identifier: Apache-2.0
#include "pipeline/gate.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace peergate::pipeline {
namespace {

TEST(GatePipeline, AFailureWhileDecidingBecomesAVetoNotAnError) {
    util::EnvMap env;
    env.set("GGML_CUDA_P2P", "0");
    env.set("PATH", "/bin");
    GateRequest request{.selection = policy::gate::Selection::list({0, 1}),
                        .profile = policy::gate::Profile::llama_cpp};
    const auto d = decide_safely(
        []() -> policy::gate::GateInput { throw std::runtime_error("the probe crashed"); },
        env,
        request);
    EXPECT_FALSE(d.p2p);
    EXPECT_EQ(d.rule, "decision_failed");
    EXPECT_NE(d.veto.find("the probe crashed"), std::string::npos);
    EXPECT_TRUE(d.unsets("GGML_CUDA_P2P"));  // the strip still happens
    EXPECT_EQ(d.set_value("CUDA_VISIBLE_DEVICES"),
              "0,1");  // the child still sees what it asked for
    EXPECT_FALSE(d.set_value("GGML_CUDA_P2P"));

    const auto odd = decide_safely([]() -> policy::gate::GateInput { throw 42; }, env, request);
    EXPECT_EQ(odd.rule, "decision_failed");
}

TEST(GatePipeline, MissingNvidiaSmiIsAnUnreadableTopology) {
    util::Seams seams;
    seams.nvml_libraries = {"/nonexistent/libnvidia-ml.so.1"};
    seams.nvidia_smi = "/nonexistent/nvidia-smi";
    seams.host_root = "/nonexistent-root";
    util::EnvMap env;
    const auto d = decide_for_host(seams, env, GateRequest{});
    EXPECT_FALSE(d.p2p);
    EXPECT_EQ(d.topology_source, model::TopologySource::none);
}

TEST(GatePipeline, RequestParsing) {
    EXPECT_TRUE(parse_gate_request(std::nullopt, "llama.cpp").has_value());
    EXPECT_FALSE(parse_gate_request(std::nullopt, "llama.cpp")->selection.is_explicit());
    EXPECT_FALSE(parse_gate_request("", "llama.cpp").has_value());
    EXPECT_EQ(parse_gate_request("0,2", "nccl")->selection, policy::gate::Selection::list({0, 2}));
    EXPECT_FALSE(parse_gate_request("zero", "nccl").has_value());
    EXPECT_FALSE(parse_gate_request("0", "tensorrt").has_value());
}

}  // namespace
}  // namespace peergate::pipeline
