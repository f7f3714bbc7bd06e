// SPDX-License-Identifier: Apache-2.0
// peergate gather records NVML's answers (NVLinks, P2P status per caps index) so that
// replaying the record answers what the simulated NVML answered for the original, and a
// hung NVML never hangs gather.
#include "snapshot/derived.hpp"
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>

namespace peergate {
namespace {

using nlohmann::json;
using test::fixture_machine;
using test::peergate_in;
using test::ScratchDir;

std::vector<std::string> machines_under_test() {
    std::vector<std::string> paths;
    for (const auto& name : test::builtin_machine_names()) {
        paths.push_back(test::builtin_machine_path(name));
    }
    for (const char* name : {"nvml-dgx1-v100", "nvml-nvswitch-8x", "nvml-pcie-2x", "nvml-single"}) {
        paths.push_back(fixture_machine(name));
    }
    return paths;
}

snapshot::MachineFile gather(const ScratchDir& scratch,
                             const std::string& machine,
                             const std::string& out) {
    const auto result = peergate_in(scratch, {"--simulate", machine, "gather", "--output", out});
    EXPECT_EQ(result.exit_code, 0) << result.err;
    auto recorded = snapshot::load_machine(out);
    EXPECT_TRUE(recorded.has_value()) << (recorded ? "" : recorded.error().message);
    return recorded ? *recorded : snapshot::MachineFile{};
}

snapshot::MachineFile load(const std::string& path) {
    auto machine = snapshot::load_machine(path);
    EXPECT_TRUE(machine.has_value()) << (machine ? "" : machine.error().message);
    return machine ? *machine : snapshot::MachineFile{};
}

// The identity fields of topo --json's gpus (NUMA and CPUs are compared by the smi tests).
json gpu_identities(const json& topo) {
    json out = json::array();
    for (const auto& gpu : topo.value("gpus", json::array())) {
        json identity = json::array();
        for (const char* key : {"index", "name", "pci_bus_id", "uuid"}) {
            identity.push_back(gpu.contains(key) ? gpu[key] : json());
        }
        out.push_back(identity);
    }
    return out;
}

std::vector<snapshot::MachineNvlink> active_links(
    const std::vector<snapshot::MachineNvlink>& links) {
    std::vector<snapshot::MachineNvlink> out;
    for (const auto& link : links) {
        if (link.active) {
            out.push_back(link);
        }
    }
    return out;
}

void expect_same_nvml_topology(const ScratchDir& scratch,
                               const std::string& a,
                               const std::string& b) {
    const auto left = peergate_in(scratch, {"--simulate", a, "topo", "--source", "nvml", "--json"});
    const auto right =
        peergate_in(scratch, {"--simulate", b, "topo", "--source", "nvml", "--json"});
    EXPECT_EQ(left.exit_code, right.exit_code) << left.err << right.err;
    const auto l = json::parse(left.out, nullptr, false);
    const auto r = json::parse(right.out, nullptr, false);
    ASSERT_FALSE(l.is_discarded()) << left.out << left.err;
    ASSERT_FALSE(r.is_discarded()) << right.out << right.err;
    EXPECT_EQ(gpu_identities(r), gpu_identities(l));
    EXPECT_EQ(r.value("matrix", json()), l.value("matrix", json()));
    EXPECT_EQ(r.value("source", json()), l.value("source", json()));
}

TEST(GatherNvml, ReplayGivesTheSameNvmlTopologyForEveryMachine) {
    for (const auto& path : machines_under_test()) {
        SCOPED_TRACE(path);
        const ScratchDir scratch;
        const std::string out = scratch.file("g.json");
        gather(scratch, path, out);
        expect_same_nvml_topology(scratch, path, out);
    }
}

TEST(GatherNvml, RecordsWhatTheSimulatedNvmlAnswersAndIsAFixedPoint) {
    using snapshot::P2pCaps;
    for (const auto& path : machines_under_test()) {
        SCOPED_TRACE(path);
        const ScratchDir scratch;
        const auto original = load(path);
        const auto once = gather(scratch, path, scratch.file("g1.json"));
        const auto twice = gather(scratch, scratch.file("g1.json"), scratch.file("g2.json"));
        ASSERT_EQ(once.gpus.size(), original.gpus.size());
        EXPECT_EQ(once.nvml_p2p_read, snapshot::p2p_status_matrix(original, P2pCaps::read));
        EXPECT_EQ(once.nvml_p2p_write, snapshot::p2p_status_matrix(original, P2pCaps::write));
        EXPECT_EQ(once.nvml_p2p_nvlink, snapshot::p2p_status_matrix(original, P2pCaps::nvlink));
        EXPECT_EQ(once.nvml_p2p_atomics, snapshot::p2p_status_matrix(original, P2pCaps::atomics));
        EXPECT_EQ(once.nvml_p2p_prop, snapshot::p2p_status_matrix(original, P2pCaps::prop));
        EXPECT_EQ(once.nvswitch, original.nvswitch);
        for (std::size_t p = 0; p < once.gpus.size(); ++p) {
            EXPECT_EQ(active_links(once.gpus[p].nvlinks),
                      active_links(snapshot::gpu_nvlinks(original, p)))
                << "GPU " << p;
            EXPECT_EQ(static_cast<int>(once.gpus[p].nvlinks.size()), once.gpus[p].nvlink_slots)
                << "GPU " << p;
            EXPECT_EQ(twice.gpus[p].nvlinks, once.gpus[p].nvlinks) << "GPU " << p;
            EXPECT_EQ(twice.gpus[p].nvlink_slots, once.gpus[p].nvlink_slots) << "GPU " << p;
        }
        EXPECT_EQ(twice.nvml_p2p_read, once.nvml_p2p_read);
        EXPECT_EQ(twice.nvml_p2p_write, once.nvml_p2p_write);
        EXPECT_EQ(twice.nvml_p2p_nvlink, once.nvml_p2p_nvlink);
        EXPECT_EQ(twice.nvml_p2p_atomics, once.nvml_p2p_atomics);
        EXPECT_EQ(twice.nvml_p2p_prop, once.nvml_p2p_prop);
        EXPECT_EQ(twice.nvswitch, once.nvswitch);
    }
}

TEST(GatherNvml, NvlinksAndSwitchesAreRecordedExplicitly) {
    const ScratchDir scratch;
    const auto dgx = gather(scratch, "dgx1-v100", scratch.file("dgx.json"));
    ASSERT_FALSE(dgx.gpus.empty());
    ASSERT_FALSE(dgx.gpus[0].nvlinks.empty());
    EXPECT_EQ(dgx.gpus[0].nvlinks[0].remote_type, "gpu");
    EXPECT_TRUE(dgx.gpus[0].nvlinks[0].remote_pci.has_value());
    EXPECT_FALSE(dgx.nvswitch);
    const auto hgx = gather(scratch, "hgx-b200-8x", scratch.file("hgx.json"));
    ASSERT_FALSE(hgx.gpus.empty());
    ASSERT_FALSE(hgx.gpus[0].nvlinks.empty());
    EXPECT_EQ(hgx.gpus[0].nvlinks[0].remote_type, "switch");
    EXPECT_TRUE(hgx.nvswitch);
    EXPECT_GE(hgx.gpus[0].nvlink_slots, static_cast<int>(hgx.gpus[0].nvlinks.size()));
}

// Cross-check cases: NVML's answers disagree with the matrix; the record keeps both.
TEST(GatherNvml, ExplicitStatusThatDisagreesWithTheMatrixSurvivesReplay) {
    const ScratchDir scratch;
    auto machine = load(fixture_machine("nvml-pcie-2x"));
    machine.nvml_p2p_nvlink = {{"X", "OK"}, {"OK", "X"}};  // NVML claims NVLink, topo -m says NODE
    machine.nvml_p2p_read = {{"X", "GNS"}, {"DR", "X"}};
    const std::string original = scratch.write("cross.json", snapshot::to_json_text(machine));
    const auto once = gather(scratch, original, scratch.file("g1.json"));
    EXPECT_EQ(once.nvml_p2p_nvlink, machine.nvml_p2p_nvlink);
    EXPECT_EQ(once.nvml_p2p_read, machine.nvml_p2p_read);
    EXPECT_EQ(once.matrix, machine.matrix);
    const auto twice = gather(scratch, scratch.file("g1.json"), scratch.file("g2.json"));
    EXPECT_EQ(twice.nvml_p2p_nvlink, machine.nvml_p2p_nvlink);
    EXPECT_EQ(twice.nvml_p2p_read, machine.nvml_p2p_read);
    expect_same_nvml_topology(scratch, original, scratch.file("g1.json"));
    // The builtin GeForce machine: read/write GNS while topo -m shows PIX pairs.
    const auto geforce = gather(scratch, "rtx4090-8x-pcie", scratch.file("geforce.json"));
    EXPECT_EQ(geforce.nvml_p2p_read, test::load_builtin_machine("rtx4090-8x-pcie").nvml_p2p_read);
}

TEST(GatherNvml, LinksThatAreAllDownStayDownOnReplay) {
    const ScratchDir scratch;
    auto machine = load(fixture_machine("nvml-dgx1-v100"));
    machine.gpus[0].nvlink_slots = 6;
    for (int link = 0; link < 6; ++link) {
        machine.gpus[0].nvlinks.push_back(snapshot::MachineNvlink{.link = link, .active = false});
    }
    const std::string original = scratch.write("down.json", snapshot::to_json_text(machine));
    const auto once = gather(scratch, original, scratch.file("g1.json"));
    ASSERT_EQ(once.gpus[0].nvlinks.size(), 6U)
        << "inactive links are recorded, not left to derivation";
    EXPECT_TRUE(active_links(once.gpus[0].nvlinks).empty());
    const auto twice = gather(scratch, scratch.file("g1.json"), scratch.file("g2.json"));
    EXPECT_EQ(twice.gpus[0].nvlinks, once.gpus[0].nvlinks);
    expect_same_nvml_topology(scratch, original, scratch.file("g1.json"));
}

TEST(GatherNvml, HungNvmlIsAbandonedAndTheRestIsRecorded) {
    const ScratchDir scratch;
    auto machine = load(fixture_machine("nvml-pcie-2x"));
    machine.faults.push_back(snapshot::MachineFault{
        .layer = "nvml", .call = "nvmlDeviceGetP2PStatus", .effect = "hang"});
    const std::string hung = scratch.write("hung.json", snapshot::to_json_text(machine));
    const std::string out = scratch.file("g.json");
    const auto start = std::chrono::steady_clock::now();
    const auto result =
        peergate_in(scratch, {"--simulate", hung, "gather", "--nvml-timeout", "0.5", "-o", out});
    const auto elapsed = std::chrono::steady_clock::now() - start;
    EXPECT_FALSE(result.timed_out);
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_LT(elapsed, std::chrono::seconds(10)) << "gather must not wait for the hung worker";
    EXPECT_NE(result.err.find("NVML answers not recorded: NVML did not answer within 500 ms"),
              std::string::npos)
        << result.err;
    const auto recorded = load(out);
    EXPECT_FALSE(recorded.recorded_topo_m.empty());
    EXPECT_EQ(recorded.matrix, machine.matrix);
    EXPECT_TRUE(recorded.nvml_p2p_read.empty()) << "no answer is recorded as absent, never guessed";
    EXPECT_TRUE(recorded.nvml_p2p_nvlink.empty());
}

TEST(GatherNvml, FailedStatusCallsLeaveTheirMatrixAbsent) {
    const ScratchDir scratch;
    auto machine = load(fixture_machine("nvml-pcie-2x"));
    machine.faults.push_back(snapshot::MachineFault{
        .layer = "nvml", .call = "nvmlDeviceGetP2PStatus", .effect = "fail", .code = 999});
    const auto recorded = gather(scratch,
                                 scratch.write("fail.json", snapshot::to_json_text(machine)),
                                 scratch.file("g.json"));
    EXPECT_TRUE(recorded.nvml_p2p_read.empty());
    EXPECT_TRUE(recorded.nvml_p2p_atomics.empty());
    EXPECT_EQ(recorded.matrix, machine.matrix);
}

TEST(GatherNvml, WithoutNvidiaSmiTheGpusAndMatrixComeFromNvml) {
    for (const char* name : {"nvml-dgx1-v100", "nvml-single"}) {
        SCOPED_TRACE(name);
        const ScratchDir scratch;
        auto machine = load(fixture_machine(name));
        machine.faults.push_back(snapshot::MachineFault{.layer = "smi", .effect = "missing"});
        const std::string no_smi = scratch.write("no-smi.json", snapshot::to_json_text(machine));
        const std::string out = scratch.file("g.json");
        const auto result = peergate_in(scratch, {"--simulate", no_smi, "gather", "-o", out});
        ASSERT_EQ(result.exit_code, 0) << result.err;
        EXPECT_NE(result.err.find("GPUs and matrix recorded from NVML"), std::string::npos)
            << result.err;
        const auto recorded = load(out);
        EXPECT_TRUE(recorded.recorded_topo_m.empty());
        EXPECT_EQ(recorded.matrix, machine.matrix);
        ASSERT_EQ(recorded.gpus.size(), machine.gpus.size());
        EXPECT_EQ(recorded.gpus[0].uuid, machine.gpus[0].uuid);
        EXPECT_EQ(recorded.gpus[0].pci, machine.gpus[0].pci);
        expect_same_nvml_topology(scratch, fixture_machine(name), out);
    }
}

// The fabric registration NVML reports is recorded per GPU, and the replay reports it again:
// an unregistered board still refuses CUDA (the note), a GPU outside a fabric records none.
TEST(GatherNvml, FabricRegistrationIsRecordedAndReplayed) {
    const ScratchDir scratch;
    auto machine = load(fixture_machine("fabric-in-progress-8x"));
    machine.gpus[6].fabric =
        model::GpuFabric{.state = model::FabricState::completed,
                         .status = 999,
                         .clique_id = 4026,
                         .cluster_uuid = "9c6f5af3-53bf-49b5-a436-b66766c413c3",
                         .health_mask = 0x1};
    const std::string original = scratch.write("fabric.json", snapshot::to_json_text(machine));
    const std::string out = scratch.file("g.json");
    const auto result = peergate_in(scratch, {"--simulate", original, "gather", "-o", out});
    ASSERT_EQ(result.exit_code, 0) << result.err;
    EXPECT_NE(result.err.find("CUDA_ERROR_SYSTEM_NOT_READY"), std::string::npos) << result.err;
    const auto recorded = load(out);
    ASSERT_EQ(recorded.gpus.size(), 8U);
    for (std::size_t g = 0; g < 8; ++g) {
        auto expected = *machine.gpus[g].fabric;
        expected.health_mask = expected.health_mask.value_or(0);  // the V call answers one
        EXPECT_EQ(recorded.gpus[g].fabric, expected) << "GPU " << g;
    }
    const auto again = gather(scratch, out, scratch.file("again.json"));
    EXPECT_EQ(again.gpus[6].fabric, recorded.gpus[6].fabric) << "a fixed point";
    const auto outside =
        gather(scratch, test::builtin_machine_path("bridged-a100-4x"), scratch.file("a.json"));
    EXPECT_FALSE(outside.gpus[0].fabric.has_value());
}

}  // namespace
}  // namespace peergate
