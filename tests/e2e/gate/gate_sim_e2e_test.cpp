// SPDX-License-Identifier: Apache-2.0
// gate and exec on the built-in simulated machines: the real binary, the simulated
// nvidia-smi and the materialised host root, through the same code as a GPU host.
#include "gate_e2e_support.hpp"

#include <gtest/gtest.h>

namespace peergate::e2e {
namespace {

TEST(GateSimE2e, ExecOnBridgedBoxSetsP2pOnlyInsideABridge) {
    const auto across =
        peergate({"--simulate", "bridged-a100-4x", "exec", "--gpus", "0,2", "--", "env"});
    ASSERT_EQ(across.exit_code, 0) << across.err;
    const auto across_env = parse_env_output(across.out);
    EXPECT_EQ(across_env.count("GGML_CUDA_P2P"), 0U);
    EXPECT_EQ(across_env.at("CUDA_VISIBLE_DEVICES"), "0,2");
    EXPECT_EQ(across_env.at("CUDA_DEVICE_ORDER"), "PCI_BUS_ID");
    EXPECT_NE(across.err.find("P2P vetoed: GPU 0 to GPU 2 is SYS, not NVLink"), std::string::npos)
        << across.err;

    const auto inside =
        peergate({"--simulate", "bridged-a100-4x", "exec", "--gpus", "0,1", "--", "env"});
    ASSERT_EQ(inside.exit_code, 0) << inside.err;
    EXPECT_EQ(parse_env_output(inside.out).at("GGML_CUDA_P2P"), "1");
}

TEST(GateSimE2e, ExecRemovesAnOffValuedGgmlCudaP2p) {
    for (const char* value : {"0", "", "false", "OFF", "no", " 0 "}) {
        SCOPED_TRACE(std::string("GGML_CUDA_P2P='") + value + "'");
        auto env = base_env();
        env.set("GGML_CUDA_P2P", value);
        const auto r =
            peergate({"--simulate", "bridged-a100-4x", "exec", "--gpus", "0,1", "--", "env"}, env);
        ASSERT_EQ(r.exit_code, 0) << r.err;
        EXPECT_EQ(parse_env_output(r.out).count("GGML_CUDA_P2P"), 0U);
        EXPECT_NE(r.err.find("unset GGML_CUDA_P2P"), std::string::npos) << r.err;
    }
}

TEST(GateSimE2e, ExecGivesTheChildExactlyTheDecidedEnvironment) {
    auto parent = base_env();
    parent.set("FOO", "bar baz");
    parent.set("CUDA_VISIBLE_DEVICES", "3");
    const auto r =
        peergate({"--simulate", "bridged-a100-4x", "exec", "--gpus", "0,1", "--", "env"}, parent);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    auto expected = parent;
    expected.set("CUDA_DEVICE_ORDER", "PCI_BUS_ID");
    expected.set("CUDA_VISIBLE_DEVICES", "0,1");
    expected.set("GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F", "1");
    expected.set("CUDA_SCALE_LAUNCH_QUEUES", "4x");
    expected.set("GGML_CUDA_P2P", "1");
    EXPECT_EQ(parse_env_output(r.out), as_map(expected));
}

struct MachineCase {
    const char* machine;
    std::vector<std::string> args;
    bool p2p;
    const char* veto;  // substring; "" when allowed
    const char* iommu;
    std::vector<std::string> set;
};

TEST(GateSimE2e, GateJsonOnEveryBuiltInMachine) {
    const std::string suffix =
        "; bare-metal Linux with a translating IOMMU, where CUDA does not support PCIe peer copies "
        "at all";
    // clang-format off
    const MachineCase cases[] = {
        {"hgx-b200-8x", {}, true, "", "identity",
         {"GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F", "CUDA_SCALE_LAUNCH_QUEUES", "GGML_CUDA_P2P"}},
        {"pcie-rtx6000ada-2x-iommu", {}, false, "GPU 0 to GPU 1 is NODE, not NVLink", "translating",
         {"GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F", "CUDA_SCALE_LAUNCH_QUEUES"}},
        {"single-h200", {}, false, "only GPU 0 is selected", "identity", {"GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F"}},
        {"rtx4090-8x-pcie", {}, false, "GPU 0 (NVIDIA GeForce RTX 4090) is not a data-center GPU", "identity", {}},
        {"dgx1-v100", {}, false, "GPU 0 to GPU 5 is SYS, not NVLink", "off", {}},
        {"dgx1-v100", {"--gpus", "0,1"}, true, "", "off",
         {"CUDA_DEVICE_ORDER", "CUDA_VISIBLE_DEVICES", "CUDA_SCALE_LAUNCH_QUEUES", "GGML_CUDA_P2P"}},
        {"dgx1-v100", {"--gpus", "0,5"}, false, "GPU 0 (Tesla V100-SXM2-32GB) is not a data-center GPU", "off",
         {"CUDA_DEVICE_ORDER", "CUDA_VISIBLE_DEVICES"}},
        {"bridged-a100-4x", {"--gpus", "2,3"}, true, "", "off",
         {"CUDA_DEVICE_ORDER", "CUDA_VISIBLE_DEVICES", "GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F",
          "CUDA_SCALE_LAUNCH_QUEUES", "GGML_CUDA_P2P"}},
        {"bridged-a100-4x", {}, false, "GPU 0 to GPU 2 is SYS, not NVLink", "off",
         {"GGML_CUDA_FORCE_CUBLAS_COMPUTE_32F", "CUDA_SCALE_LAUNCH_QUEUES"}},
    };
    // clang-format on
    for (const auto& c : cases) {
        std::vector<std::string> args = {"--simulate", c.machine, "gate", "--json"};
        args.insert(args.end(), c.args.begin(), c.args.end());
        SCOPED_TRACE(util::join(args, " "));
        const auto r = peergate(args);
        EXPECT_EQ(r.exit_code, c.p2p ? 0 : 1) << r.err;
        auto doc = nlohmann::ordered_json::parse(r.out, nullptr, false);
        ASSERT_FALSE(doc.is_discarded()) << r.out;
        EXPECT_EQ(doc["schema"], "peergate.gate/v1");
        EXPECT_EQ(doc["p2p"], c.p2p);
        EXPECT_EQ(doc["iommu"], c.iommu);
        EXPECT_EQ(doc["node_usable"], true);  // vetoed or not, every built-in machine runs CUDA
        EXPECT_TRUE(doc["node_rule"].is_null());
        if (c.p2p) {
            EXPECT_TRUE(doc["veto"].is_null());
        } else {
            const std::string veto = doc["veto"];
            EXPECT_NE(veto.find(c.veto), std::string::npos) << veto;
            const bool wants_suffix = std::string(c.iommu) == "translating";
            EXPECT_EQ(veto.size() > suffix.size() && veto.ends_with(suffix), wants_suffix) << veto;
        }
        std::vector<std::string> set;
        for (const auto& item : doc["set"].items()) {
            set.push_back(item.key());
        }
        EXPECT_EQ(set, c.set);

        // exec gives a real program exactly that: every planned variable, P2P only when allowed.
        std::vector<std::string> exec_args = {"--simulate", c.machine, "exec"};
        exec_args.insert(exec_args.end(), c.args.begin(), c.args.end());
        exec_args.insert(exec_args.end(), {"--", "env"});
        auto parent = base_env();
        parent.set("GGML_CUDA_P2P", "0");
        const auto run = peergate(exec_args, parent);
        ASSERT_EQ(run.exit_code, 0) << run.err;
        const auto child = parse_env_output(run.out);
        EXPECT_EQ(child.count("GGML_CUDA_P2P"),
                  0U);  // the off value is stripped, the gate says off
        args.push_back("--json");
        const auto opted_out = nlohmann::ordered_json::parse(peergate(args, parent).out);
        EXPECT_EQ(opted_out["unset"], nlohmann::ordered_json::array({"GGML_CUDA_P2P"}));
        for (const auto& item : opted_out["set"].items()) {
            const auto it = child.find(item.key());
            ASSERT_NE(it, child.end()) << item.key();
            EXPECT_EQ(it->second, item.value().get<std::string>());
        }
        const auto clean = parse_env_output(peergate(exec_args).out);
        EXPECT_EQ(clean.count("GGML_CUDA_P2P"), c.p2p ? 1U : 0U);
    }
}

// A GPU id the host does not have is a usage error (issue 52): exit 2 with the id and the
// host's GPUs named, nothing on stdout (no plan for a list the host cannot give: the child's
// driver would show GPU 0 only), and exec never starts the command.
TEST(GateSimE2e, AGpuNotOnTheHostIsAUsageErrorAndNothingRuns) {
    const std::string error =
        "peergate: --gpus: GPU 9 is not on this host (its GPUs: 0, 1, 2, 3)\n";
    for (const char* format : {"text", "json", "shell"}) {
        SCOPED_TRACE(format);
        const auto gate = peergate(
            {"--simulate", "bridged-a100-4x", "gate", "--gpus", "0,9", "--format", format});
        EXPECT_EQ(gate.exit_code, 2) << gate.out;
        EXPECT_EQ(gate.out, "");
        EXPECT_EQ(gate.err, error);
    }
    const auto exec = peergate(
        {"--simulate", "bridged-a100-4x", "exec", "--gpus", "0,9", "--", "sh", "-c", "echo ran"});
    EXPECT_EQ(exec.exit_code, 2) << exec.err;
    EXPECT_EQ(exec.out, "") << "the command ran";
    EXPECT_EQ(exec.err, error);
    const auto two = peergate({"--simulate", "bridged-a100-4x", "gate", "--gpus", "7,1,8"});
    EXPECT_EQ(two.exit_code, 2);
    EXPECT_EQ(two.err, "peergate: --gpus: GPUs 7, 8 are not on this host (its GPUs: 0, 1, 2, 3)\n");
}

TEST(GateSimE2e, ShellFormatEvaluatesInARealShell) {
    const std::string script =
        std::string("eval \"$('") + PEERGATE_BINARY +
        "' --simulate bridged-a100-4x gate --gpus 0,1 --for all --format shell)\"; "
        "printf '%s|%s|%s' \"$GGML_CUDA_P2P\" \"$CUDA_VISIBLE_DEVICES\" "
        "\"${NCCL_P2P_LEVEL-unset}\"";
    util::Command command;
    command.argv = {"/bin/sh", "-c", script};
    command.env = base_env();
    const auto r = util::run_process(command);
    ASSERT_TRUE(r.has_value());
    EXPECT_EQ(r->out, "1|0,1|unset") << r->err;
}

}  // namespace
}  // namespace peergate::e2e
