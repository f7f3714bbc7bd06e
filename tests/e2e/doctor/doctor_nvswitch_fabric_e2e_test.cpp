// SPDX-License-Identifier: Apache-2.0
// peergate doctor on an NVSwitch baseboard whose fabric manager has not registered the GPUs,
// end to end: the simulated NVML reports every GPU In Progress
// (tests/fixtures/machines/fabric-in-progress-8x.json), the simulated cuInit fails with
// CUDA_ERROR_SYSTEM_NOT_READY as the real driver does, every NVLink still reads NV18, and the
// doctor names the cause where the capability layers cannot.
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

TEST(DoctorNvswitchFabric, AnUnregisteredBoardIsAProblemNamingTheFabricManager) {
    const auto run =
        run_peergate({"--simulate", fixture_machine("fabric-in-progress-8x"), "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["verdict"], "problems");
    const auto* not_ready = find_finding(doc, "nvswitch_fabric_not_ready", "[0,1,2,3,4,5,6,7]");
    ASSERT_NE(not_ready, nullptr) << doc["findings"].dump(2);
    EXPECT_EQ((*not_ready)["severity"], "error");
    EXPECT_NE((*not_ready)["remedy"].get<std::string>().find("nvidia-fabricmanager-570"),
              std::string::npos)
        << "the package of the recorded driver, 570.86.15";
    const auto& fabric = doc["layers"]["peer_access"]["nvswitch_fabric"];
    ASSERT_EQ(fabric.size(), 8U) << fabric.dump();
    EXPECT_EQ(fabric[4]["state"], "in_progress");
    EXPECT_EQ(fabric[4]["ready"], false);
    EXPECT_EQ(fabric[4]["cluster_uuid"], nullptr);
    const auto notes = doc["layers"]["peer_access"]["notes"].dump();
    EXPECT_NE(notes.find("cuInit failed: 802 CUDA_ERROR_SYSTEM_NOT_READY"), std::string::npos)
        << notes;
    EXPECT_EQ(doc["layers"]["peer_access"]["pairs"][0]["topology"], "NV18")
        << "the links still read NVLink";
}

// An HGX A100 without its fabric manager: NVML has no fabric state before Hopper, and the
// driver answers cuInit with CUDA_ERROR_SYSTEM_NOT_READY (a cuInit fault with code 802).
std::string hgx_a100_without_fabric_manager(const ScratchDir& scratch) {
    auto machine = load_builtin_machine("hgx-b200-8x");
    for (auto& gpu : machine.gpus) {
        gpu.name = "NVIDIA A100-SXM4-80GB";
        gpu.nvlink_slots = 12;
        gpu.nvlink_counters = model::NvlinkCounterSet::dl;
        gpu.fabric.reset();
    }
    for (auto& row : machine.matrix) {
        for (auto& label : row) {
            label = label.kind == model::LinkKind::nvlink ? model::LinkLabel::nvlink(12) : label;
        }
    }
    machine.faults.push_back(
        snapshot::MachineFault{.layer = "cuda", .call = "cuInit", .effect = "fail", .code = 802});
    return scratch.write("hgx-a100.json", snapshot::to_json_text(machine));
}

TEST(DoctorNvswitchFabric, BeforeHopperCuInitsAnswerNamesTheFabricManager) {
    const ScratchDir scratch;
    const auto run =
        run_peergate({"--simulate", hgx_a100_without_fabric_manager(scratch), "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err;
    const auto doc = stdout_json(run);
    const auto* not_ready = find_finding(doc, "nvswitch_fabric_not_ready", "[]");
    ASSERT_NE(not_ready, nullptr) << doc["findings"].dump(2);
    EXPECT_NE((*not_ready)["message"].get<std::string>().find("cuInit answered"),
              std::string::npos);
    EXPECT_EQ(doc["layers"]["peer_access"]["nvswitch_fabric"].dump(), "[]");
}

TEST(DoctorNvswitchFabric, ARegisteredBoardIsHealthyAndShowsItsRegistration) {
    const auto run =
        run_peergate({"--simulate", "hgx-b200-8x", "doctor", "--json", "--gpus", "2,5"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    EXPECT_EQ(find_finding(doc, "nvswitch_fabric_not_ready"), nullptr);
    const auto& fabric = doc["layers"]["peer_access"]["nvswitch_fabric"];
    ASSERT_EQ(fabric.size(), 2U) << "the GPUs examined: " << fabric.dump();
    EXPECT_EQ(fabric[0]["gpu"], 2);
    EXPECT_EQ(fabric[1]["state"], "completed");
    EXPECT_EQ(fabric[1]["ready"], true);
}

TEST(DoctorNvswitchFabric, GpusOutsideAFabricHaveNoFabricLayer) {
    const auto run = run_peergate({"--simulate", "bridged-a100-4x", "doctor", "--json"});
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["layers"]["peer_access"]["nvswitch_fabric"].dump(), "[]");
}

TEST(DoctorNvswitchFabric, TheTextReportShowsTheStateOnEachGpuLine) {
    const auto run = run_peergate(
        {"--simulate", fixture_machine("fabric-in-progress-8x"), "doctor", "--no-color"});
    EXPECT_EQ(run.process.exit_code, 1);
    EXPECT_NE(run.process.out.find("NVLinks 18 of 18 up; fabric In Progress"), std::string::npos)
        << run.process.out;
    EXPECT_NE(run.process.out.find("[error] nvswitch_fabric_not_ready: GPUs 0,1,2,3,4,5,6,7 are "
                                   "still registering"),
              std::string::npos)
        << run.process.out;
}

// Two GPUs of an HGX board in MIG mode: a warning naming them, the verdict still healthy,
// the mode in the JSON layer, the Links text and the textfile.
TEST(DoctorMig, MigOnGpusOfTheSelectionIsAWarningNamingThem) {
    const ScratchDir scratch;
    auto machine = load_builtin_machine("hgx-b200-8x");
    machine.gpus[2].mig = model::MigMode{.enabled = true, .pending = true};
    machine.gpus[3].mig = model::MigMode{.enabled = true, .pending = true};
    machine.gpus[4].mig = model::MigMode{};
    const auto path = scratch.write("mig.json", snapshot::to_json_text(machine));
    const auto run = run_peergate({"--simulate", path, "doctor", "--json", "--gpus", "2,3,4"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto doc = stdout_json(run);
    ASSERT_NE(find_finding(doc, "mig_enabled", "[2,3]"), nullptr) << doc["findings"].dump(2);
    const auto& mig = doc["layers"]["peer_access"]["mig"];
    ASSERT_EQ(mig.size(), 3U) << mig.dump();
    EXPECT_EQ(mig[0]["enabled"], true);
    EXPECT_EQ(mig[2]["enabled"], false);
    const auto text = run_peergate({"--simulate", path, "doctor", "--no-color"});
    EXPECT_NE(text.process.out.find("fabric Completed; MIG on"), std::string::npos)
        << text.process.out;
    const auto textfile = run_peergate({"--simulate", path, "export", "prometheus"});
    EXPECT_NE(textfile.process.out.find("peergate_gpu_mig_enabled{gpu=\"3\"} 1"),
              std::string::npos);
    EXPECT_NE(textfile.process.out.find("peergate_gpu_mig_enabled{gpu=\"4\"} 0"),
              std::string::npos);
}

TEST(DoctorNvswitchFabric, TheTextfileSaysEachGpuIsUnregistered) {
    const auto run = run_peergate(
        {"--simulate", fixture_machine("fabric-in-progress-8x"), "export", "prometheus"});
    const auto& text = run.process.out;
    EXPECT_NE(text.find("peergate_gpu_nvswitch_fabric_registered{gpu=\"7\"} 0"), std::string::npos)
        << text;
    EXPECT_NE(text.find("peergate_gpu_nvswitch_fabric_info{gpu=\"0\",state=\"in_progress\","
                        "status=\"0\",clique_id=\"0\",cluster_uuid=\"\"} 1"),
              std::string::npos);
    EXPECT_NE(text.find("peergate_doctor_finding{code=\"nvswitch_fabric_not_ready\","
                        "severity=\"error\"} 1"),
              std::string::npos);
}

}  // namespace
}  // namespace peergate::test
