// SPDX-License-Identifier: Apache-2.0
// peergate gate --for nccl on a simulated bridged A100 box whose NVLink bridge between GPUs 0
// and 1 is down, with the topology file Azure's NCv4 image ships (bridges on 0-1 and 2-3, bus
// ids moved to the simulated machine's): the file still shows NCCL that NVLink, so the gate
// disables NCCL's P2P rather than trust NCCL_P2P_LEVEL=NVL, and says why; the doctor names the
// file and the pair.
#include "support/fixture_files.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace peergate::test {
namespace {

using Json = nlohmann::ordered_json;

std::string replaced(std::string text, const std::string& from, const std::string& to) {
    for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at)) {
        text.replace(at, from.size(), to);
        at += to.size();
    }
    return text;
}

class GateNcclTopoFile : public ::testing::Test {
protected:
    void SetUp() override {
        auto machine =
            Json::parse(util::read_file(test::builtin_machine_path("bridged-a100-4x")).value());
        machine["matrix"][0][1] = "SYS";  // the 0-1 bridge is down
        machine["matrix"][1][0] = "SYS";
        machine_ = scratch_.write("bridge-down.json", machine.dump());
        std::string topo = read_fixture("nccl_topo", "azure-ncv4-topo.xml");
        const char* ours[] = {"0000:17:00.0", "0000:31:00.0", "0000:b1:00.0", "0000:ca:00.0"};
        for (int i = 0; i < 4; ++i) {
            topo = replaced(topo, "000" + std::to_string(i + 1) + ":00:00.0", ours[i]);
        }
        topo_ = scratch_.write("topo.xml", topo);
    }

    PeergateRun gate(const std::string& machine, const std::string& gpus) const {
        auto env = clean_env();
        env.set("NCCL_TOPO_FILE", topo_);
        return run_peergate(
            {"--simulate", machine, "gate", "--gpus", gpus, "--for", "nccl", "--json"}, env);
    }

    test::ScratchDir scratch_;
    std::string machine_;
    std::string topo_;
};

TEST_F(GateNcclTopoFile, AClaimedNvlinkTheHostLostDisablesNcclP2p) {
    const auto run = gate(machine_, "0,1");
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["set"]["NCCL_P2P_DISABLE"], "1") << doc.dump(2);
    EXPECT_FALSE(doc["set"].contains("NCCL_P2P_LEVEL"));
    EXPECT_NE(doc["warnings"].dump().find("shows an NVLink where this host has none (GPU 0 to "
                                          "GPU 1 is SYS)"),
              std::string::npos)
        << doc.dump(2);
}

TEST_F(GateNcclTopoFile, TheHealthyBoxKeepsTheUsualPlan) {
    auto doc = stdout_json(gate("bridged-a100-4x", "0,1"));
    EXPECT_EQ(doc["p2p"], true);
    EXPECT_FALSE(doc["set"].contains("NCCL_P2P_DISABLE"));
    doc = stdout_json(gate("bridged-a100-4x", "0,2"));
    EXPECT_EQ(doc["set"]["NCCL_P2P_LEVEL"], "NVL");
    EXPECT_EQ(doc["warnings"].dump().find("topology file"), std::string::npos);
}

TEST_F(GateNcclTopoFile, TheDoctorNamesTheFileAndThePair) {
    auto env = clean_env();
    env.set("NCCL_TOPO_FILE", topo_);
    const auto doc = stdout_json(run_peergate({"--simulate", machine_, "doctor", "--json"}, env));
    bool found = false;
    for (const auto& finding : doc["findings"]) {
        if (finding["code"] == "nccl_topo_file_false_nvlink") {
            found = true;
            EXPECT_EQ(finding["gpus"], Json::parse("[0, 1]"));
            EXPECT_NE(finding["message"].get<std::string>().find("GPU 0 to GPU 1 (SYS)"),
                      std::string::npos);
        }
    }
    EXPECT_TRUE(found) << doc["findings"].dump(2);
}

}  // namespace
}  // namespace peergate::test
