// SPDX-License-Identifier: Apache-2.0
// A CUDA driver that is installed and does not initialise is doubt (docs/gate-rules.md §2,
// cuda_unavailable), end to end: on an NVSwitch board whose fabric manager has not registered
// the GPUs (tests/fixtures/machines/fabric-in-progress-8x.json: NVML reads NV18 everywhere,
// cuInit answers 802 CUDA_ERROR_SYSTEM_NOT_READY), gate, exec and every export say the node
// cannot take P2P, where before the index rules allowed it on the NV18 matrix.
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
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["p2p"], false);
    EXPECT_EQ(doc["rule"], "cuda_unavailable");
    const auto reason = doc["reason"].get<std::string>();
    EXPECT_NE(reason.find("cuInit failed: 802 CUDA_ERROR_SYSTEM_NOT_READY"), std::string::npos)
        << reason;
    EXPECT_NE(reason.find("nvidia-fabricmanager"), std::string::npos) << reason;
    EXPECT_FALSE(doc["set"].contains("GGML_CUDA_P2P")) << doc["set"].dump();
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
