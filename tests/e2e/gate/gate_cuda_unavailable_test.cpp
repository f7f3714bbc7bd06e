// SPDX-License-Identifier: Apache-2.0
// A CUDA driver that is installed and does not initialise is doubt (docs/gate-rules.md §2,
// cuda_unavailable), end to end: on an NVSwitch board whose fabric manager has not registered
// the GPUs (tests/fixtures/machines/fabric-in-progress-8x.json: NVML reads NV18 everywhere,
// cuInit answers 802 CUDA_ERROR_SYSTEM_NOT_READY), gate, exec and every export say the node
// cannot take P2P, where before the index rules allowed it on the NV18 matrix. Such a node is
// unusable, not only vetoed (issue 52): gate exits 3 and says so in its JSON, and exec and
// watch do not start their command unless --even-if-unusable asks for it.
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

const std::string& fabric_not_ready() {
    static const std::string path = fixture_machine("fabric-in-progress-8x");
    return path;
}

TEST(GateCudaUnavailable, GateVetoesNamingTheErrorAndTheFabricManager) {
    const auto run =
        run_peergate({"--simulate", fabric_not_ready(), "gate", "--gpus", "0,1", "--json"});
    EXPECT_EQ(run.process.exit_code, 3) << run.process.err;  // node unusable, not only vetoed
    auto doc = stdout_json(run);
    EXPECT_EQ(doc["p2p"], false);
    EXPECT_EQ(doc["rule"], "cuda_unavailable");
    const auto reason = doc["reason"].get<std::string>();
    EXPECT_NE(reason.find("cuInit failed: 802 CUDA_ERROR_SYSTEM_NOT_READY"), std::string::npos)
        << reason;
    EXPECT_NE(reason.find("nvidia-fabricmanager"), std::string::npos) << reason;
    EXPECT_FALSE(doc["set"].contains("GGML_CUDA_P2P")) << doc["set"].dump();
    EXPECT_EQ(doc["node_usable"], false);
    EXPECT_EQ(doc["node_rule"], "cuda_unavailable");
    EXPECT_EQ(doc["node_reason"], reason);
}

// The node's state does not hide behind a stronger P2P rule: with P2P switched off the rule
// is disable_p2p, and gate still exits 3 and names why no CUDA program can start.
TEST(GateCudaUnavailable, TheExitStatusTellsAnUnusableNodeFromAVeto) {
    auto env = clean_env();
    env.set("PEERGATE_DISABLE_P2P", "1");
    const auto json =
        run_peergate({"--simulate", fabric_not_ready(), "gate", "--gpus", "0,1", "--json"}, env);
    EXPECT_EQ(json.process.exit_code, 3) << json.process.err;
    auto doc = stdout_json(json);
    EXPECT_EQ(doc["rule"], "disable_p2p");
    EXPECT_EQ(doc["node_usable"], false);
    EXPECT_EQ(doc["node_rule"], "cuda_unavailable");
    const auto text = run_peergate({"--simulate", fabric_not_ready(), "gate"}, env);
    EXPECT_EQ(text.process.exit_code, 3);
    EXPECT_NE(text.process.out.find("\nnode unusable: the CUDA driver is installed but does not "
                                    "initialise (cuInit failed: 802 CUDA_ERROR_SYSTEM_NOT_READY)"),
              std::string::npos)
        << text.process.out;
    EXPECT_NE(text.process.out.find("[rule cuda_unavailable]\n"), std::string::npos);
    // A usable node that is only vetoed keeps 1, and says it is usable.
    const auto vetoed = run_peergate({"--simulate", "bridged-a100-4x", "gate", "--gpus", "0,2"});
    EXPECT_EQ(vetoed.process.exit_code, 1) << vetoed.process.out;
    EXPECT_EQ(vetoed.process.out.find("node unusable"), std::string::npos) << vetoed.process.out;
}

TEST(GateCudaUnavailable, ExecDoesNotStartTheCommandWhereNoCudaProgramCan) {
    for (const bool quiet : {false, true}) {
        std::vector<std::string> args{"--simulate", fabric_not_ready()};
        if (quiet) {
            args.emplace_back("-q");  // the refusal is an error: -q does not hide it
        }
        args.insert(args.end(), {"exec", "--gpus", "0,1", "--", "sh", "-c", "echo ran"});
        const auto run = run_peergate(args);
        EXPECT_EQ(run.process.exit_code, 2) << run.process.err;
        EXPECT_EQ(run.process.out, "") << "the command ran";
        const auto& err = run.process.err;
        EXPECT_TRUE(
            err.starts_with("peergate: 'sh' not started: the CUDA driver is installed but "
                            "does not initialise (cuInit failed: 802 "
                            "CUDA_ERROR_SYSTEM_NOT_READY)"))
            << err;
        EXPECT_NE(err.find("nvidia-fabricmanager"), std::string::npos) << err;
        EXPECT_NE(err.find("--even-if-unusable"), std::string::npos) << err;
        EXPECT_EQ(err.find("P2P vetoed"), std::string::npos) << "no plan for a command not run";
    }
}

TEST(GateCudaUnavailable, EvenIfUnusableStartsTheCommandWithP2pOff) {
    const auto run = run_peergate({"--simulate",
                                   fabric_not_ready(),
                                   "exec",
                                   "--even-if-unusable",
                                   "--gpus",
                                   "0,1",
                                   "--",
                                   "env"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_NE(run.process.out.find("CUDA_VISIBLE_DEVICES=0,1\n"), std::string::npos)
        << run.process.out;
    EXPECT_EQ(run.process.out.find("GGML_CUDA_P2P"), std::string::npos) << run.process.out;
    EXPECT_NE(run.process.err.find("peergate: P2P vetoed: the CUDA driver is installed"),
              std::string::npos)
        << run.process.err;
    EXPECT_NE(run.process.err.find("\npeergate: warning: no CUDA program can start here [rule "
                                   "cuda_unavailable]; the command starts anyway "
                                   "(--even-if-unusable)\n"),
              std::string::npos)
        << run.process.err;
}

// A driver upgraded without a reboot: cuInit answers 803, so no CUDA program starts either.
TEST(GateCudaUnavailable, ADriverMismatchIsAnUnusableNodeToo) {
    const ScratchDir scratch;
    auto machine = load_builtin_machine("pcie-rtx6000ada-2x-iommu");
    machine.host.kernel_module_version = "560.35.03";  // driver_version is 570.86.15
    const auto path = scratch.write("mismatch.json", snapshot::to_json_text(machine));
    const auto gate = run_peergate({"--simulate", path, "gate", "--json"});
    EXPECT_EQ(gate.process.exit_code, 3) << gate.process.err;
    auto doc = stdout_json(gate);
    EXPECT_EQ(doc["node_usable"], false);
    EXPECT_NE(doc["node_reason"].get<std::string>().find("803"), std::string::npos) << doc.dump(2);
    const auto exec = run_peergate({"--simulate", path, "exec", "--", "sh", "-c", "echo ran"});
    EXPECT_EQ(exec.process.exit_code, 2) << exec.process.err;
    EXPECT_EQ(exec.process.out, "");
    EXPECT_NE(exec.process.err.find("different versions"), std::string::npos) << exec.process.err;
}

TEST(GateCudaUnavailable, ForceCannotLiftIt) {
    auto env = clean_env();
    env.set("PEERGATE_FORCE_P2P", "1");
    const auto run =
        run_peergate({"--simulate", fabric_not_ready(), "gate", "--gpus", "0,1", "--json"}, env);
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["rule"], "cuda_unavailable") << doc.dump(2);
    EXPECT_EQ(doc["p2p"], false);
}

TEST(GateCudaUnavailable, NfdAndPrometheusDoNotCallTheNodeOk) {
    const auto nfd = run_peergate({"--simulate", fabric_not_ready(), "export", "nfd"});
    EXPECT_NE(nfd.process.out.find("/p2p.status=vetoed\n"), std::string::npos) << nfd.process.out;
    EXPECT_NE(nfd.process.out.find("/p2p.rule=cuda_unavailable\n"), std::string::npos)
        << nfd.process.out;
    const auto prom = run_peergate({"--simulate", fabric_not_ready(), "export", "prometheus"});
    EXPECT_NE(prom.process.out.find("\npeergate_p2p_allowed 0\n"), std::string::npos)
        << prom.process.out;
}

}  // namespace
}  // namespace peergate::test
