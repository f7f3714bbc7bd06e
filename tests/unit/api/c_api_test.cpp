// SPDX-License-Identifier: Apache-2.0
#include "envp.hpp"
#include "peergate/peergate_c.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdlib>
#include <string>
#include <vector>

namespace {

using Envp = peergate::test::Envp;

Envp bridged_env(std::vector<std::string> extra = {}) {
    std::vector<std::string> vars = {
        "PATH=/usr/bin:/bin",
        "PEERGATE_NVML_LIB=/nonexistent/libnvidia-ml.so.1",
        std::string("PEERGATE_NVIDIA_SMI=") + PEERGATE_TEST_SCRIPTS + "/smi_bridged_a100_4x.sh",
        std::string("PEERGATE_HOST_ROOT=") + PEERGATE_TEST_FIXTURES + "/host/vm-dma",
    };
    vars.insert(vars.end(), extra.begin(), extra.end());
    return Envp(std::move(vars));
}

TEST(CApi, ReturnsTheGateDocumentAndTheVerdict) {
    const auto env = bridged_env({"GGML_CUDA_P2P=0"});
    std::string out(1 << 16, '\0');
    EXPECT_EQ(peergate_gate_json(env.pointers.data(), "0,1", "llama.cpp", out.data(), out.size()),
              1);
    const auto doc = nlohmann::json::parse(out.c_str());
    EXPECT_EQ(doc["schema"], "peergate.gate/v1");
    EXPECT_EQ(doc["unset"], nlohmann::json::array({"GGML_CUDA_P2P"}));

    const auto clean = bridged_env();
    EXPECT_EQ(peergate_gate_json(clean.pointers.data(), "0,1", nullptr, out.data(), out.size()), 0);
    EXPECT_EQ(nlohmann::json::parse(out.c_str())["set"]["GGML_CUDA_P2P"], "1");
    EXPECT_EQ(nlohmann::json::parse(out.c_str())["profile"], "llama.cpp") << "NULL's profile";
    EXPECT_EQ(peergate_gate_json(clean.pointers.data(), "0,2", "nccl", out.data(), out.size()), 1);
    EXPECT_EQ(nlohmann::json::parse(out.c_str())["set"]["NCCL_P2P_LEVEL"], "NVL");
}

// The status is what `peergate gate` exits with (issue 52): 2 with the error for a GPU the
// host does not have, 3 where no CUDA program can start (the fabric manager has not
// registered the GPUs of this NVSwitch board: cuInit answers 802).
TEST(CApi, ReturnsWhatTheGateCommandExitsWith) {
    const auto bridged = bridged_env();
    std::string out(1 << 16, '\0');
    EXPECT_EQ(peergate_gate_json(bridged.pointers.data(), "0,9", nullptr, out.data(), out.size()),
              2);
    EXPECT_EQ(nlohmann::json::parse(out.c_str())["error"],
              "GPU 9 is not on this host (its GPUs: 0, 1, 2, 3)");
    const Envp fabric({"PATH=/usr/bin:/bin",
                       std::string("PEERGATE_SIMULATE=") + PEERGATE_TEST_FIXTURES +
                           "/machines/fabric-in-progress-8x.json"});
    EXPECT_EQ(peergate_gate_json(fabric.pointers.data(), "0,1", nullptr, out.data(), out.size()),
              3);
    auto doc = nlohmann::json::parse(out.c_str());
    EXPECT_EQ(doc["p2p"], false);
    EXPECT_EQ(doc["node_usable"], false) << doc.dump(2);
    EXPECT_EQ(doc["node_rule"], "cuda_unavailable");
}

// identity-mixed-4x: CUDA's FASTEST_FIRST ordinals 0,1 are nvidia-smi GPUs 2,3 (NV12). The
// C API runs inside other programs, so it asks the peergate installed beside it (here the
// build tree's bin/peergate) to enumerate what the child will see.
TEST(CApi, JoinsOnIdentityThroughThePeergateInstalledBesideIt) {
    const Envp env({"PATH=/usr/bin:/bin",
                    std::string("PEERGATE_SIMULATE=") + PEERGATE_TEST_FIXTURES +
                        "/machines/identity-mixed-4x.json",
                    "CUDA_VISIBLE_DEVICES=0,1"});
    std::string out(1 << 16, '\0');
    peergate_gate_json(env.pointers.data(), nullptr, nullptr, out.data(), out.size());
    const auto doc = nlohmann::json::parse(out.c_str());
    EXPECT_EQ(doc["selection_source"], "cuda_identity") << doc.dump(2);
    EXPECT_EQ(doc["selection"], nlohmann::json({2, 3})) << doc.dump(2);
}

// The program calling the C API has no PEERGATE_SIM_MACHINE in its environment (and the API
// sets none): the simulated NVML is told the machine when it is loaded, so the NVML tier
// answers, as it does for the peergate command, not only nvidia-smi's.
TEST(CApi, ASimulatedMachineIsReadThroughTheSimulatedNvml) {
    ASSERT_EQ(std::getenv("PEERGATE_SIM_MACHINE"), nullptr);  // NOLINT(concurrency-mt-unsafe)
    const Envp env({"PATH=/usr/bin:/bin", "PEERGATE_SIMULATE=hgx-b200-8x"});
    std::string out(1 << 16, '\0');
    EXPECT_EQ(peergate_gate_json(env.pointers.data(), "all", nullptr, out.data(), out.size()), 0);
    const auto doc = nlohmann::json::parse(out.c_str());
    EXPECT_EQ(doc["topology_source"], "nvml") << doc.dump(2);
    EXPECT_EQ(doc["rule"], "every_pair_nvlink");
}

TEST(CApi, PlacesTheBestGroupAndDecidesForIt) {
    const auto env = bridged_env();
    std::string out(1 << 16, '\0');
    // Bridged A100: NV pairs {0,1} and {2,3}; the smallest indices win the tie.
    EXPECT_EQ(
        peergate_gate_place_json(env.pointers.data(), nullptr, 2, "nccl", out.data(), out.size()),
        0);
    auto doc = nlohmann::json::parse(out.c_str());
    EXPECT_EQ(doc["selection"], nlohmann::json({0, 1})) << doc.dump(2);
    EXPECT_EQ(doc["set"]["CUDA_VISIBLE_DEVICES"], "0,1") << doc.dump(2);
    EXPECT_EQ(
        peergate_gate_place_json(env.pointers.data(), "1,2,3", 2, nullptr, out.data(), out.size()),
        0);
    EXPECT_EQ(nlohmann::json::parse(out.c_str())["selection"], nlohmann::json({2, 3}));
    // place 0 is the plain gate.
    EXPECT_EQ(
        peergate_gate_place_json(env.pointers.data(), "0,2", 0, "nccl", out.data(), out.size()), 1);
    EXPECT_EQ(nlohmann::json::parse(out.c_str())["selection"], nlohmann::json({0, 2}));
    // More GPUs than there are, or fewer than one: an error, never a decision.
    EXPECT_EQ(
        peergate_gate_place_json(env.pointers.data(), nullptr, 5, nullptr, out.data(), out.size()),
        2);
    doc = nlohmann::json::parse(out.c_str());
    EXPECT_EQ(doc["schema"], "peergate.gate/v1");
    EXPECT_NE(doc["error"].get<std::string>().find("4 candidate"), std::string::npos) << doc;
    EXPECT_EQ(
        peergate_gate_place_json(env.pointers.data(), nullptr, -1, nullptr, out.data(), out.size()),
        2);
}

// identity-mixed-4x: CUDA ordinals 0,1 are nvidia-smi GPUs 2,3; the best single GPU of the
// whole host is GPU 0, of the inherited allocation GPU 2.
TEST(CApi, PlacesWithinTheInheritedAllocation) {
    const Envp env({"PATH=/usr/bin:/bin",
                    std::string("PEERGATE_SIMULATE=") + PEERGATE_TEST_FIXTURES +
                        "/machines/identity-mixed-4x.json",
                    "CUDA_VISIBLE_DEVICES=0,1"});
    std::string out(1 << 16, '\0');
    peergate_gate_place_json(env.pointers.data(), nullptr, 1, nullptr, out.data(), out.size());
    const auto doc = nlohmann::json::parse(out.c_str());
    EXPECT_EQ(doc["selection"], nlohmann::json({2})) << doc.dump(2);
}

TEST(CApi, BadArgumentsAndSmallBuffers) {
    const auto env = bridged_env();
    std::string out(4096, '\0');
    EXPECT_EQ(peergate_gate_json(env.pointers.data(), "zero", nullptr, out.data(), out.size()), 2);
    EXPECT_NE(
        nlohmann::json::parse(out.c_str())["error"].get<std::string>().find("not a GPU index"),
        std::string::npos);
    EXPECT_EQ(peergate_gate_json(env.pointers.data(), nullptr, "tensorrt", out.data(), out.size()),
              2);

    char tiny[8] = "xxxxxxx";
    const int needed = peergate_gate_json(env.pointers.data(), "0,1", nullptr, tiny, sizeof(tiny));
    ASSERT_LT(needed, 0);
    EXPECT_EQ(tiny[0], '\0');
    std::string exact(static_cast<std::size_t>(-needed), '\0');
    EXPECT_EQ(peergate_gate_json(env.pointers.data(), "0,1", nullptr, exact.data(), exact.size()),
              0);
    std::vector<char> one_short(exact.size() - 1, 'x');  // room for the text, not its NUL
    EXPECT_EQ(
        peergate_gate_json(env.pointers.data(), "0,1", nullptr, one_short.data(), one_short.size()),
        needed);
    EXPECT_EQ(one_short[0], '\0');
    EXPECT_EQ(peergate_gate_json(nullptr, nullptr, nullptr, nullptr, 0) < 0, true);
}

// A simulated machine that cannot be set up leaves nothing to decide on: the plain gate
// vetoes (fails closed, status 1), and a placement, which needs the topology, is status 2.
TEST(CApi, AnUnknownSimulatedMachineVetoesOrCannotPlace) {
    const Envp env({"PATH=/usr/bin:/bin", "PEERGATE_SIMULATE=no-such-machine"});
    std::string out(1 << 16, '\0');
    EXPECT_EQ(peergate_gate_json(env.pointers.data(), "0,1", nullptr, out.data(), out.size()), 1);
    const auto doc = nlohmann::json::parse(out.c_str());
    EXPECT_EQ(doc["p2p"], false);
    EXPECT_NE(doc["reason"].get<std::string>().find("no-such-machine"), std::string::npos)
        << doc.dump(2);
    EXPECT_EQ(
        peergate_gate_place_json(env.pointers.data(), nullptr, 2, nullptr, out.data(), out.size()),
        2);
    EXPECT_EQ(nlohmann::json::parse(out.c_str())["error"].get<std::string>().rfind("place: ", 0),
              0U);
}

}  // namespace
