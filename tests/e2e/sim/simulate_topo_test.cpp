// SPDX-License-Identifier: Apache-2.0
// peergate --simulate, end to end: the nvidia-smi tier on every built-in machine answers
// what the same text answers when saved and read with --from; nvidia-smi faults end in a
// clean "unreadable" (exit 2) with the reason.
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>

namespace peergate {
namespace {

using nlohmann::json;
using test::peergate_in;
using test::run_program;
using test::ScratchDir;

json parse_json(const util::ProcessResult& result) {
    return json::parse(result.out, nullptr, false);
}

TEST(SimulateTopo, NvidiaSmiTierEqualsTheSavedTextReadWithFromForEveryBuiltin) {
    for (const auto& name : test::builtin_machine_names()) {
        SCOPED_TRACE(name);
        const ScratchDir scratch;
        util::EnvMap env;
        env.set("PEERGATE_SIM_MACHINE", test::builtin_machine_path(name));
        const auto text = run_program({PEERGATE_SIM_NVIDIA_SMI, "topo", "-m"}, env);
        const std::string saved = scratch.write("topo.txt", text.out);
        const auto simulated =
            peergate_in(scratch, {"--simulate", name, "topo", "--source", "smi", "--json"});
        const auto from_file = peergate_in(scratch, {"topo", "--from", saved, "--json"});
        const auto a = parse_json(simulated);
        const auto b = parse_json(from_file);
        ASSERT_FALSE(a.is_discarded()) << simulated.out << simulated.err;
        ASSERT_FALSE(b.is_discarded()) << from_file.out << from_file.err;
        EXPECT_EQ(a["readable"], b["readable"]);
        EXPECT_EQ(a["matrix"], b["matrix"]);
        EXPECT_EQ(a["nvlink_islands"], b["nvlink_islands"]);
        EXPECT_EQ(simulated.exit_code, from_file.exit_code);
        const bool pair = test::load_builtin_machine(name).gpus.size() >= 2;
        EXPECT_EQ(simulated.exit_code, pair ? 0 : 2);
        if (pair) {
            EXPECT_EQ(a["source"], "nvidia-smi");
            EXPECT_EQ(a["gpus"][0]["uuid"], test::load_builtin_machine(name).gpus[0].uuid);
        }
    }
}

TEST(SimulateTopo, FromAMachineFileGivesTheSameMatrix) {
    const ScratchDir scratch;
    const auto simulated = parse_json(
        peergate_in(scratch, {"--simulate", "dgx1-v100", "topo", "--source", "smi", "--json"}));
    const auto from_machine = parse_json(peergate_in(
        scratch, {"topo", "--from", test::builtin_machine_path("dgx1-v100"), "--json"}));
    EXPECT_EQ(from_machine["source"], "file");
    EXPECT_EQ(simulated["matrix"], from_machine["matrix"]);
    EXPECT_EQ(simulated["gpus"], from_machine["gpus"]);
}

// Every tier's reason, joined: the nvidia-smi tier's says how the tool failed.
std::string tier_reasons(const json& doc) {
    std::string all;
    for (const auto& tier : doc.value("tiers", json::array())) {
        all += tier.value("reason", "") + "\n";
    }
    return all;
}

std::string machine_with_smi_fault(const ScratchDir& scratch,
                                   const std::string& effect,
                                   int code = 0) {
    auto machine = test::load_builtin_machine("hgx-b200-8x");
    machine.faults.push_back(
        snapshot::MachineFault{.layer = "smi", .effect = effect, .code = code});
    return scratch.write("faulty-" + effect + ".json", snapshot::to_json_text(machine));
}

struct FaultCase {
    std::string effect;
    std::string says;
};

TEST(SimulateTopo, NvidiaSmiFaultsAreUnreadableWithTheReason) {
    const std::vector<FaultCase> cases{
        {"exit", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver"},
        {"truncated", "unreadable"},
        {"missing", "nvidia-smi.not-installed"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.effect);
        const ScratchDir scratch;
        const auto result = peergate_in(scratch,
                                        {"--simulate",
                                         machine_with_smi_fault(scratch, c.effect),
                                         "topo",
                                         "--source",
                                         "smi",
                                         "--json"});
        EXPECT_EQ(result.exit_code, 2);
        const auto doc = parse_json(result);
        EXPECT_EQ(doc["readable"], false);
        EXPECT_NE(tier_reasons(doc).find(c.says), std::string::npos) << doc.dump();
    }
}

TEST(SimulateTopo, ExitFaultCarriesItsStatus) {
    const ScratchDir scratch;
    const auto result = peergate_in(scratch,
                                    {"--simulate",
                                     machine_with_smi_fault(scratch, "exit", 12),
                                     "topo",
                                     "--source",
                                     "smi",
                                     "--json"});
    EXPECT_EQ(result.exit_code, 2);
    const auto doc = parse_json(result);
    EXPECT_EQ(doc["readable"], false);
    EXPECT_NE(tier_reasons(doc).find("exited with status 12"), std::string::npos) << doc.dump();
}

TEST(SimulateTopo, HangingNvidiaSmiIsKilledAfterTheTimeout) {
    const ScratchDir scratch;
    const auto started = std::chrono::steady_clock::now();
    const auto result = peergate_in(scratch,
                                    {"--simulate",
                                     machine_with_smi_fault(scratch, "hang"),
                                     "topo",
                                     "--source",
                                     "smi",
                                     "--json"},
                                    std::chrono::seconds(20));
    const auto took = std::chrono::steady_clock::now() - started;
    EXPECT_FALSE(result.timed_out) << "peergate itself must not hang";
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_LT(took, std::chrono::seconds(12));
    EXPECT_GE(took, std::chrono::seconds(9));
    EXPECT_NE(tier_reasons(parse_json(result)).find("did not finish within"), std::string::npos)
        << result.out;
}

TEST(SimulateTopo, UnknownMachineListsTheBuiltins) {
    const ScratchDir scratch;
    const auto result = peergate_in(scratch, {"--simulate", "nosuch", "topo"});
    EXPECT_EQ(result.exit_code, 2);
    for (const auto& name : test::builtin_machine_names()) {
        EXPECT_NE(result.err.find(name), std::string::npos) << result.err;
    }
}

TEST(SimulateTopo, BrokenMachineFileIsRefusedNamingTheField) {
    const ScratchDir scratch;
    const std::string bad =
        scratch.write("bad.json", R"({"schema": "peergate.machine/v1", "gpus": []})");
    const auto result = peergate_in(scratch, {"--simulate", bad, "topo"});
    EXPECT_EQ(result.exit_code, 2);
    EXPECT_NE(result.err.find("gpus"), std::string::npos) << result.err;
}

}  // namespace
}  // namespace peergate
