// SPDX-License-Identifier: Apache-2.0
// The environment plan: set if absent, kept user values, the off-value strip, profiles.
#include "gate_test_support.hpp"
#include "policy/gate/env_plan.hpp"
#include "policy/gate/gate.hpp"

#include <gtest/gtest.h>

namespace peergate::policy::gate {
namespace {

using namespace peergate::test;  // NOLINT(google-build-using-namespace)

std::vector<std::string> set_names(const GateDecision& d) {
    std::vector<std::string> names;
    for (const auto& s : d.set) {
        names.push_back(s.name);
    }
    return names;
}

// `unset` lists only what the child would otherwise inherit, each name once.
TEST(GateEnv, PlanRemovesOnlyWhatTheParentHas) {
    const auto parent = env({{"GGML_CUDA_P2P", "0"}});
    GateDecision decision;
    EnvPlan plan(parent, decision);
    plan.remove("NCCL_P2P_DISABLE", "not inherited");
    plan.remove("GGML_CUDA_P2P", "reads as off");
    plan.remove("GGML_CUDA_P2P", "twice");
    ASSERT_EQ(decision.unset.size(), 1U);
    EXPECT_EQ(decision.unset.front().name, "GGML_CUDA_P2P");
    EXPECT_EQ(decision.unset.front().reason, "reads as off");
    EXPECT_FALSE(plan.inherited("GGML_CUDA_P2P"));
}

TEST(GateEnv, OffValuesAreStrippedOnEveryPath) {
    const char* spellings[] = {"", "0", "false", "OFF", "no", " 0 ", "False", "No\t"};

    struct Path {
        const char* what;
        std::function<GateInput(util::EnvMap)> make;
    };

    // clang-format off
    const Path paths[] = {
        {"NVLink box", [](util::EnvMap e) { return input(uniform_nvlink(4), {}, std::move(e)); }},
        {"PCIe box", [](util::EnvMap e) { return input(pcie_box(2, "NVIDIA L40S"), {}, std::move(e)); }},
        {"single GPU", [](util::EnvMap e) { return input(uniform_nvlink(1), {}, std::move(e)); }},
        {"non data-center", [](util::EnvMap e) { return input(pcie_box(8, "NVIDIA GeForce RTX 4090"), {}, std::move(e)); }},
        {"DISABLE_TUNING", [](util::EnvMap e) {
             e.set("PEERGATE_DISABLE_TUNING", "1");
             return input(uniform_nvlink(4), {}, std::move(e));
         }},
        {"FORCE", [](util::EnvMap e) {
             e.set("PEERGATE_FORCE_P2P", "1");
             return input(pcie_box(2, "NVIDIA L40S"), {}, std::move(e));
         }},
        {"nccl profile", [](util::EnvMap e) {
             auto in = input(uniform_nvlink(4), {}, std::move(e));
             in.profile = Profile::nccl;
             return in;
         }},
        {"vllm profile", [](util::EnvMap e) {
             auto in = input(bridged_a100_4x(), gpus({0, 2}), std::move(e));
             in.profile = Profile::vllm;
             return in;
         }},
        {"decision failed", [](util::EnvMap e) {
             auto in = input(uniform_nvlink(4), {}, std::move(e));
             in.failures.push_back("the topology source threw");
             return in;
         }},
    };
    // clang-format on
    for (const auto& path : paths) {
        for (const char* value : spellings) {
            SCOPED_TRACE(std::string(path.what) + " GGML_CUDA_P2P='" + value + "'");
            const auto d = decide(path.make(env({{"GGML_CUDA_P2P", value}})));
            EXPECT_TRUE(d.unsets("GGML_CUDA_P2P"));
            EXPECT_FALSE(d.set_value("GGML_CUDA_P2P"));
            EXPECT_FALSE(d.kept_value("GGML_CUDA_P2P"));
            EXPECT_FALSE(d.p2p);
            util::EnvMap child = env({{"GGML_CUDA_P2P", value}});
            d.apply_to(child);
            EXPECT_FALSE(child.contains("GGML_CUDA_P2P"));
        }
    }
    const auto failed =
        failed_decision(input(uniform_nvlink(2), {}, env({{"GGML_CUDA_P2P", "no"}})), "boom");
    EXPECT_TRUE(failed.unsets("GGML_CUDA_P2P"));
}

TEST(GateEnv, TruthyUserValueIsHonouredWithAWarningWhenUnconfirmed) {
    const auto pcie = decide(input(pcie_box(2, "NVIDIA L40S"), {}, env({{"GGML_CUDA_P2P", "1"}})));
    EXPECT_FALSE(pcie.p2p);
    EXPECT_EQ(pcie.kept_value("GGML_CUDA_P2P"), "1");
    EXPECT_FALSE(pcie.unsets("GGML_CUDA_P2P"));
    EXPECT_TRUE(warns_about(
        pcie, "GGML_CUDA_P2P='1' set by the user is kept although the gate vetoes P2P"));

    const auto yes = decide(input(pcie_box(2, "NVIDIA L40S"), {}, env({{"GGML_CUDA_P2P", "yes"}})));
    EXPECT_EQ(yes.kept_value("GGML_CUDA_P2P"), "yes");

    const auto nvlink = decide(input(uniform_nvlink(2), {}, env({{"GGML_CUDA_P2P", "1"}})));
    EXPECT_TRUE(nvlink.p2p);
    EXPECT_EQ(nvlink.kept_value("GGML_CUDA_P2P"), "1");
    EXPECT_FALSE(nvlink.set_value("GGML_CUDA_P2P"));
    EXPECT_TRUE(nvlink.warnings.empty());

    const auto forced = decide(input(pcie_box(2, "NVIDIA L40S"),
                                     {},
                                     env({{"GGML_CUDA_P2P", "1"}, {"PEERGATE_FORCE_P2P", "1"}})));
    EXPECT_TRUE(warns_about(forced, "not confirmed as NVLink"));
}

TEST(GateEnv, DisableP2pRemovesAnInheritedTruthyValueAndKeepsTuning) {
    const auto d = decide(
        input(uniform_nvlink(4), {}, env({{"PEERGATE_DISABLE_P2P", "1"}, {"GGML_CUDA_P2P", "1"}})));
    EXPECT_TRUE(d.unsets("GGML_CUDA_P2P"));
    EXPECT_EQ(d.set_value("GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F"), "1");
    EXPECT_EQ(d.set_value("CUDA_SCALE_LAUNCH_QUEUES"), "4x");
    EXPECT_FALSE(d.set_value("GGML_CUDA_P2P"));
}

TEST(GateEnv, DisableTuningSetsNothing) {
    const auto d = decide(input(uniform_nvlink(4), {}, env({{"PEERGATE_DISABLE_TUNING", "1"}})));
    EXPECT_TRUE(d.set.empty());
    EXPECT_TRUE(d.unset.empty());
    const auto kept = decide(input(
        uniform_nvlink(4), {}, env({{"UNSLOTH_DISABLE_DC_TUNING", "1"}, {"GGML_CUDA_P2P", "1"}})));
    EXPECT_EQ(kept.kept_value("GGML_CUDA_P2P"), "1");
    EXPECT_FALSE(kept.unsets("GGML_CUDA_P2P"));
}

TEST(GateEnv, TuningVariablesFollowNamesAndCount) {
    struct Case {
        const char* what;
        GateInput in;
        std::vector<std::string> set;
    };

    const std::vector<std::vector<std::string>> v100_pair = {{"X", "NV2"}, {"NV2", "X"}};
    // clang-format off
    const Case cases[] = {
        {"8x B200", input(uniform_nvlink(8)),
         {"GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F", "CUDA_SCALE_LAUNCH_QUEUES", "GGML_CUDA_P2P"}},
        {"single H200: only FP32", input(uniform_nvlink(1, "NVIDIA H200")), {"GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F"}},
        {"single H200 by --gpus 0", input(uniform_nvlink(1, "NVIDIA H200"), gpus({0})),
         {"CUDA_DEVICE_ORDER", "CUDA_VISIBLE_DEVICES", "GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F"}},
        {"bridged [0,2]", input(bridged_a100_4x(), gpus({0, 2})),
         {"CUDA_DEVICE_ORDER", "CUDA_VISIBLE_DEVICES", "GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F", "CUDA_SCALE_LAUNCH_QUEUES"}},
        {"8x RTX 4090: nothing", input(pcie_box(8, "NVIDIA GeForce RTX 4090")), {}},
        {"V100 NVLink pair: no FP32", input(topology(v100_pair, repeat("Tesla V100-SXM2-16GB", 2))),
         {"CUDA_SCALE_LAUNCH_QUEUES", "GGML_CUDA_P2P"}},
        {"mixed B200 + 4090: nothing", input(topology({{"X", "NODE"}, {"NODE", "X"}}, {"NVIDIA B200", "NVIDIA GeForce RTX 4090"})), {}},
    };
    // clang-format on
    for (const auto& c : cases) {
        SCOPED_TRACE(c.what);
        EXPECT_EQ(set_names(decide(c.in)), c.set);
    }
}

TEST(GateEnv, UserValuesAreKept) {
    const auto d = decide(input(
        uniform_nvlink(2),
        {},
        env({{"GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F", "0"}, {"CUDA_SCALE_LAUNCH_QUEUES", "8x"}})));
    EXPECT_EQ(d.kept_value("GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F"), "0");
    EXPECT_EQ(d.kept_value("CUDA_SCALE_LAUNCH_QUEUES"), "8x");
    EXPECT_EQ(set_names(d), std::vector<std::string>{"GGML_CUDA_P2P"});
}

TEST(GateEnv, ExplicitSelectionPinsTheChild) {
    const auto d =
        decide(input(bridged_a100_4x(),
                     gpus({2, 3}),
                     env({{"CUDA_VISIBLE_DEVICES", "0"}, {"CUDA_DEVICE_ORDER", "FASTEST_FIRST"}})));
    EXPECT_EQ(d.set_value("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
    EXPECT_EQ(d.set_value("CUDA_VISIBLE_DEVICES"), "2,3");
    EXPECT_TRUE(warns_about(d, "CUDA_VISIBLE_DEVICES=0 from the environment is replaced by 2,3"));
    EXPECT_TRUE(warns_about(d, "CUDA_DEVICE_ORDER=FASTEST_FIRST from the environment is replaced"));

    const auto all = decide(input(bridged_a100_4x(), Selection::all()));
    EXPECT_EQ(all.set_value("CUDA_VISIBLE_DEVICES"), "0,1,2,3");

    auto unpinned = input(uniform_nvlink(4), gpus({0, 1}));
    unpinned.pin_selection = false;
    const auto u = decide(unpinned);
    EXPECT_FALSE(u.set_value("CUDA_DEVICE_ORDER"));
    EXPECT_FALSE(u.set_value("CUDA_VISIBLE_DEVICES"));

    const auto inherited =
        decide(input(bridged_a100_4x(), {}, env({{"CUDA_VISIBLE_DEVICES", "0,1"}})));
    EXPECT_FALSE(inherited.set_value("CUDA_VISIBLE_DEVICES"));
    EXPECT_TRUE(warns_about(inherited, "every GPU on the host must qualify"));
}

GateInput with_profile(GateInput in, Profile profile) {
    in.profile = profile;
    return in;
}

TEST(GateEnv, NcclProfile) {
    const auto bridged02 =
        decide(with_profile(input(bridged_a100_4x(), gpus({0, 2})), Profile::nccl));
    EXPECT_EQ(bridged02.set_value("NCCL_P2P_LEVEL"), "NVL");
    EXPECT_FALSE(bridged02.set_value("GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F"));  // llama.cpp only

    EXPECT_FALSE(decide(with_profile(input(bridged_a100_4x(), gpus({0, 1})), Profile::nccl))
                     .set_value("NCCL_P2P_LEVEL"));
    EXPECT_FALSE(
        decide(with_profile(input(uniform_nvlink(1)), Profile::nccl)).set_value("NCCL_P2P_LEVEL"));

    const auto user_level = decide(with_profile(
        input(bridged_a100_4x(), {}, env({{"NCCL_P2P_LEVEL", "SYS"}})), Profile::nccl));
    EXPECT_FALSE(user_level.set_value("NCCL_P2P_LEVEL"));
    EXPECT_EQ(user_level.kept_value("NCCL_P2P_LEVEL"), "SYS");

    const auto user_disable = decide(with_profile(
        input(bridged_a100_4x(), {}, env({{"NCCL_P2P_DISABLE", "1"}})), Profile::nccl));
    EXPECT_FALSE(user_disable.set_value("NCCL_P2P_LEVEL"));
    EXPECT_EQ(user_disable.kept_value("NCCL_P2P_DISABLE"), "1");

    const auto forced = decide(with_profile(
        input(pcie_box(2, "NVIDIA L40S"), {}, env({{"PEERGATE_FORCE_P2P", "1"}})), Profile::nccl));
    EXPECT_FALSE(forced.set_value("NCCL_P2P_LEVEL"));

    auto unreadable = input(uniform_nvlink(2));
    unreadable.gpus = unreadable.topology->gpus;
    unreadable.topology.reset();
    EXPECT_EQ(decide(with_profile(unreadable, Profile::nccl)).set_value("NCCL_P2P_LEVEL"), "NVL");
}

TEST(GateEnv, VllmProfile) {
    const auto vetoed = decide(with_profile(input(pcie_box(2, "NVIDIA L40S")), Profile::vllm));
    EXPECT_EQ(vetoed.set_value("VLLM_SKIP_P2P_CHECK"), "0");
    EXPECT_EQ(vetoed.set_value("VLLM_ALLREDUCE_USE_SYMM_MEM"), "0");
    EXPECT_TRUE(warns_about(vetoed, "--disable-custom-all-reduce"));

    const auto allowed = decide(with_profile(input(uniform_nvlink(8)), Profile::vllm));
    EXPECT_TRUE(allowed.set.empty());

    const auto kept = decide(with_profile(
        input(pcie_box(2, "NVIDIA L40S"), {}, env({{"VLLM_SKIP_P2P_CHECK", "1"}})), Profile::vllm));
    EXPECT_EQ(kept.kept_value("VLLM_SKIP_P2P_CHECK"), "1");
    EXPECT_FALSE(kept.set_value("VLLM_SKIP_P2P_CHECK"));
}

TEST(GateEnv, AllProfileIsTheUnion) {
    const auto d = decide(with_profile(input(bridged_a100_4x(), gpus({0, 2})), Profile::all));
    EXPECT_EQ(set_names(d),
              (std::vector<std::string>{"CUDA_DEVICE_ORDER",
                                        "CUDA_VISIBLE_DEVICES",
                                        "GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F",
                                        "CUDA_SCALE_LAUNCH_QUEUES",
                                        "NCCL_P2P_LEVEL",
                                        "VLLM_SKIP_P2P_CHECK",
                                        "VLLM_ALLREDUCE_USE_SYMM_MEM",
                                        "SGLANG_SKIP_P2P_CHECK"}));
}

TEST(GateEnv, ApplyGivesTheChildExactlyThePlan) {
    util::EnvMap parent = env({{"PATH", "/bin"}, {"GGML_CUDA_P2P", "off"}, {"HOME", "/root"}});
    const auto d = decide(input(bridged_a100_4x(), gpus({0, 1}), parent));
    util::EnvMap child = parent;
    d.apply_to(child);
    EXPECT_EQ(child,
              env({{"PATH", "/bin"},
                   {"HOME", "/root"},
                   {"CUDA_DEVICE_ORDER", "PCI_BUS_ID"},
                   {"CUDA_VISIBLE_DEVICES", "0,1"},
                   {"GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F", "1"},
                   {"CUDA_SCALE_LAUNCH_QUEUES", "4x"}}));
}

TEST(GateTypes, SelectionParse) {
    EXPECT_EQ(Selection::parse("0,1,3").value(), Selection::list({0, 1, 3}));
    EXPECT_EQ(Selection::parse(" 2 , 0 ").value(), Selection::list({2, 0}));
    EXPECT_EQ(Selection::parse("all").value(), Selection::all());
    for (const char* junk : {"", "a", "0,,1", "-1", "0,0", "1x", "0;1", "99999", "all,0", "+1"}) {
        SCOPED_TRACE(junk);
        const auto parsed = Selection::parse(junk);
        ASSERT_FALSE(parsed.has_value());
        EXPECT_EQ(parsed.error().code, util::ErrorCode::invalid_input);
    }
    EXPECT_NE(Selection::parse("0,0").error().message.find("listed twice"), std::string::npos);
}

TEST(GateTypes, ProfileParse) {
    EXPECT_EQ(parse_profile("llama.cpp").value(), Profile::llama_cpp);
    EXPECT_EQ(parse_profile("nccl").value(), Profile::nccl);
    EXPECT_EQ(parse_profile("vllm").value(), Profile::vllm);
    EXPECT_EQ(parse_profile("sglang").value(), Profile::sglang);
    EXPECT_EQ(parse_profile("all").value(), Profile::all);
    EXPECT_FALSE(parse_profile("llama").has_value());
    EXPECT_EQ(to_string(Profile::llama_cpp), "llama.cpp");
}

}  // namespace
}  // namespace peergate::policy::gate
