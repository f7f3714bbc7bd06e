// SPDX-License-Identifier: Apache-2.0
// The identity join (docs/gate-rules.md §4 "beyond") through the real binary: the gate asks the
// simulated CUDA driver, in a helper process with the child's environment, which physical
// GPUs the child will see, and gates exactly those.
//
// identity-mixed-4x: nvidia-smi GPUs 0,1 are A100s (NODE, no bridge), 2,3 are H100 NVLs
// joined by NV12. FASTEST_FIRST puts the H100s first: CUDA ordinals 0,1 = GPUs 2,3.
#include "e2e/gate/gate_e2e_support.hpp"

#include <gtest/gtest.h>

namespace peergate::e2e {
namespace {

const std::string kMixed = kFixtures + "/machines/identity-mixed-4x.json";

nlohmann::json gate_json(const util::EnvMap& env, std::vector<std::string> extra = {}) {
    std::vector<std::string> args{"--simulate", kMixed};
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"gate", "--json"});
    const auto r = peergate(args, env);
    EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.err;
    auto doc = nlohmann::json::parse(r.out, nullptr, false);
    EXPECT_FALSE(doc.is_discarded()) << r.out << r.err;
    EXPECT_EQ(r.exit_code, doc.value("p2p", false) ? 0 : 1);
    return doc;
}

util::EnvMap with_mask(const char* mask, const char* order = nullptr) {
    auto env = base_env();
    env.set("CUDA_VISIBLE_DEVICES", mask);
    if (order != nullptr) {
        env.set("CUDA_DEVICE_ORDER", order);
    }
    return env;
}

TEST(IdentityE2e, HelperListsTheGpusCudaShowsInCudaOrder) {
    const auto r = peergate({"--simulate", kMixed, "cuda-visible"}, with_mask("0,1"));
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, "00000000:B1:00.0\n00000000:CA:00.0\n");
    const auto all = peergate({"--simulate", kMixed, "cuda-visible"});
    EXPECT_EQ(all.out, "00000000:B1:00.0\n00000000:CA:00.0\n00000000:17:00.0\n00000000:31:00.0\n");
    const auto bus =
        peergate({"--simulate", kMixed, "cuda-visible"}, with_mask("3,0", "PCI_BUS_ID"));
    EXPECT_EQ(bus.out, "00000000:CA:00.0\n00000000:17:00.0\n");
}

TEST(IdentityE2e, HelperExitsTwoWithoutADriverAndIsNotListed) {
    const auto r = peergate({"--cuda-lib", "/nonexistent/libcuda.so.1", "cuda-visible"});
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_NE(r.err.find("cuda-visible"), std::string::npos) << r.err;
    const auto help = peergate({"--help"});
    EXPECT_NE(help.out.find("gate"), std::string::npos);
    EXPECT_EQ(help.out.find("cuda-visible"), std::string::npos) << "an internal helper";
}

// (a) the mask's ordinals are FASTEST_FIRST ordinals: "0,1" is the NVLinked H100 pair
// (read as indices it would be the A100s, NODE), and "2,3" is the A100 pair (read as
// indices, the NVLinked one).
TEST(IdentityE2e, UnpinnedMaskGatesThePhysicalGpusCudaPicks) {
    const auto fast = gate_json(with_mask("0,1"));
    EXPECT_EQ(fast["selection_source"], "cuda_identity") << fast.dump(2);
    EXPECT_EQ(fast["selection"], nlohmann::json({2, 3}));
    EXPECT_TRUE(fast["p2p"].get<bool>()) << fast.dump(2);
    EXPECT_EQ(fast["set"].value("GGML_CUDA_P2P", ""), "1");

    const auto slow = gate_json(with_mask("2,3"));
    EXPECT_EQ(slow["selection_source"], "cuda_identity");
    EXPECT_EQ(slow["selection"], nlohmann::json({0, 1}));
    EXPECT_FALSE(slow["p2p"].get<bool>());
    EXPECT_NE(slow["veto"].get<std::string>().find("GPU 0 to GPU 1 is NODE"), std::string::npos)
        << slow.dump(2);
    EXPECT_FALSE(slow["set"].contains("GGML_CUDA_P2P"));
}

TEST(IdentityE2e, PinnedMaskIsBusOrder) {
    const auto pinned = gate_json(with_mask("0,1", "PCI_BUS_ID"));
    EXPECT_EQ(pinned["selection"], nlohmann::json({0, 1}));
    EXPECT_FALSE(pinned["p2p"].get<bool>());
}

// (b) UUID prefixes naming the NVLinked pair.
TEST(IdentityE2e, UuidMaskSelectingAnNvlinkedPairIsAllowed) {
    const auto doc = gate_json(with_mask("GPU-1d000003,GPU-1d000002"));
    EXPECT_EQ(doc["selection_source"], "cuda_identity") << doc.dump(2);
    EXPECT_EQ(doc["selection"], nlohmann::json({3, 2}));
    EXPECT_TRUE(doc["p2p"].get<bool>()) << doc.dump(2);
}

// (c) the driver stops at the first bad entry: one GPU is left, and one GPU has no peer.
TEST(IdentityE2e, BadEntryTruncatesTheMask) {
    const auto doc = gate_json(with_mask("0,foo,1"));
    EXPECT_EQ(doc["selection_source"], "cuda_identity");
    EXPECT_EQ(doc["selection"], nlohmann::json({2}));
    EXPECT_FALSE(doc["p2p"].get<bool>());
    EXPECT_EQ(doc["rule"], "single_gpu") << doc.dump(2);
}

// (d) no driver: the index rules of §4, and a note that says why.
TEST(IdentityE2e, WithoutADriverTheIndexRulesApply) {
    const auto doc = gate_json(with_mask("0,1"), {"--cuda-lib", "/nonexistent/libcuda.so.1"});
    EXPECT_EQ(doc["selection_source"], "host") << doc.dump(2);
    EXPECT_EQ(doc["selection"], nlohmann::json({0, 1, 2, 3}));
    EXPECT_FALSE(doc["p2p"].get<bool>());
    const std::string warnings = doc["warnings"].dump();
    EXPECT_NE(warnings.find("identity join not used"), std::string::npos) << warnings;
    EXPECT_NE(warnings.find("does not load"), std::string::npos) << warnings;
}

// A driver that loads and fails cuInit in the helper: the join is not used, and that is doubt,
// not the index rules' fallback (docs/gate-rules.md §2 cuda_unavailable).
TEST(IdentityE2e, FailingCuInitIsDoubtNotTheIndexRules) {
    const std::string machine = kFixtures + "/machines/probe-init-fail-2x.json";
    const auto r = peergate({"--simulate", machine, "gate", "--json"});
    const auto doc = nlohmann::json::parse(r.out, nullptr, false);
    ASSERT_FALSE(doc.is_discarded()) << r.out << r.err;
    EXPECT_EQ(doc["selection_source"], "host");
    EXPECT_FALSE(doc["p2p"].get<bool>());
    EXPECT_EQ(doc["rule"], "cuda_unavailable");
    EXPECT_NE(doc["reason"].get<std::string>().find("cuInit failed: 100 CUDA_ERROR_NO_DEVICE"),
              std::string::npos)
        << doc["reason"];
    const std::string warnings = doc["warnings"].dump();
    EXPECT_NE(warnings.find("identity join not used (the CUDA helper exited with status 2"),
              std::string::npos)
        << warnings;
}

// (e) an explicit selection still hands the child exactly the pinned environment, and the
// join (made under that environment) confirms the GPUs gated.
TEST(IdentityE2e, ExecGpusGivesThePinnedEnvironment) {
    auto parent = base_env();
    parent.set("CUDA_VISIBLE_DEVICES", "1");
    const auto nvlinked =
        peergate({"--simulate", kMixed, "exec", "--gpus", "2,3", "--", "env"}, parent);
    ASSERT_EQ(nvlinked.exit_code, 0) << nvlinked.err;
    auto expected = parent;
    expected.set("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
    expected.set("CUDA_VISIBLE_DEVICES", "2,3");
    expected.set("GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F", "1");
    expected.set("CUDA_SCALE_LAUNCH_QUEUES", "4x");
    expected.set("GGML_CUDA_P2P", "1");
    EXPECT_EQ(parse_env_output(nvlinked.out), as_map(expected));

    const auto node =
        peergate({"--simulate", kMixed, "exec", "--gpus", "0,1", "--", "env"}, parent);
    ASSERT_EQ(node.exit_code, 0) << node.err;
    const auto env = parse_env_output(node.out);
    EXPECT_EQ(env.at("CUDA_VISIBLE_DEVICES"), "0,1");
    EXPECT_EQ(env.at("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
    EXPECT_EQ(env.count("GGML_CUDA_P2P"), 0U);
    EXPECT_NE(node.err.find("GPU 0 to GPU 1 is NODE"), std::string::npos) << node.err;

    auto doc = nlohmann::json::parse(
        peergate({"--simulate", kMixed, "gate", "--gpus", "2,3", "--json"}, parent).out,
        nullptr,
        false);
    EXPECT_EQ(doc["selection_source"], "cuda_identity") << doc.dump(2);
    EXPECT_EQ(doc["selection"], nlohmann::json({2, 3}));
}

}  // namespace
}  // namespace peergate::e2e
