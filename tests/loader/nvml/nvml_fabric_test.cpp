// SPDX-License-Identifier: Apache-2.0
// The NVSwitch fabric registration through the real dlopen path: the record asks
// nvmlDeviceGetGpuFabricInfoV (v2 structure, with the health mask), falls back to the
// unversioned call where the library lacks it or the v2 structure, and keeps NOT_SUPPORTED as a GPU
// outside any fabric; a failing call leaves that GPU's registration unknown, not the record.
#include "loader/nvml/nvml_loader_support.hpp"
#include "sources/nvml/nvml_record.hpp"

#include <gtest/gtest.h>

#include <algorithm>

namespace peergate::testing_nvml {
namespace {

using model::FabricState;
using model::GpuFabric;

util::Expected<nvml::NvmlRecord> record_fabric(const std::string& machine_path) {
    ::setenv("PEERGATE_SIM_MACHINE", machine_path.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
    return nvml::record_nvml(nvml::NvmlRecordOptions{.libraries = {PEERGATE_SIM_NVML},
                                                     .host_root = "/nonexistent-host-root"});
}

std::string builtin(const std::string& name) {
    return std::string(PEERGATE_SOURCE_DIR) + "/machines/" + name + ".json";
}

snapshot::MachineFile hgx_with(const GpuFabric& gpu0, const GpuFabric& others) {
    auto machine = snapshot::load_machine(builtin("hgx-b200-8x"));
    EXPECT_TRUE(machine);
    for (auto& gpu : machine->gpus) {
        gpu.fabric = gpu.index == 0 ? gpu0 : others;
    }
    return *machine;
}

TEST(NvmlFabric, EveryGpuOfTheHgxBoardIsRegistered) {
    const auto r = record_fabric(builtin("hgx-b200-8x"));
    ASSERT_TRUE(r.has_value()) << r.error().message;
    ASSERT_EQ(r->gpus.size(), 8U);
    for (const auto& gpu : r->gpus) {
        ASSERT_TRUE(gpu.fabric.has_value());
        EXPECT_EQ(gpu.fabric->state, FabricState::completed);
        EXPECT_TRUE(gpu.fabric->ready());
        EXPECT_EQ(gpu.fabric->health_mask, 0U) << "the V call carries the health mask";
    }
}

TEST(NvmlFabric, StateStatusCliqueUuidAndHealthComeBackAsRecorded) {
    const GpuFabric failed{.state = FabricState::completed,
                           .status = 999,
                           .clique_id = 4026,
                           .cluster_uuid = "9c6f5af3-53bf-49b5-a436-b66766c413c3",
                           .health_mask = 0x11};
    const GpuFabric registering{.state = FabricState::in_progress, .health_mask = 0};
    const auto r = record_fabric(write_variant(hgx_with(failed, registering), "states"));
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(r->gpus[0].fabric, failed);
    EXPECT_TRUE(r->gpus[0].fabric->bandwidth_degraded());
    EXPECT_TRUE(r->gpus[0].fabric->route_unhealthy());
    EXPECT_EQ(r->gpus[5].fabric, registering);
    EXPECT_FALSE(r->gpus[5].fabric->ready());
}

TEST(NvmlFabric, AStateByteThisBuildDoesNotKnowIsNeverCompleted) {
    const GpuFabric newer{.state = FabricState::unknown, .health_mask = 0};
    const auto r = record_fabric(write_variant(hgx_with(newer, newer), "newer"));
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(r->gpus[0].fabric->state, FabricState::unknown);
    EXPECT_FALSE(r->gpus[0].fabric->ready());
}

// A library that knows the V call but not the v2 structure answers
// ARGUMENT_VERSION_MISMATCH; the unversioned call then answers, without a health mask.
TEST(NvmlFabric, AVersionMismatchFallsBackToTheUnversionedCall) {
    const GpuFabric registering{.state = FabricState::not_started, .health_mask = 0};
    auto machine = hgx_with(registering, registering);
    machine.faults.push_back(nvml_fault("nvmlDeviceGetGpuFabricInfoV", "fail", 25));
    const auto r = record_fabric(write_variant(machine, "mismatch"));
    ASSERT_TRUE(r.has_value()) << r.error().message;
    ASSERT_TRUE(r->gpus[3].fabric.has_value());
    EXPECT_EQ(r->gpus[3].fabric->state, FabricState::not_started);
    EXPECT_EQ(r->gpus[3].fabric->health_mask, std::nullopt) << "v1 has no health mask";
}

TEST(NvmlFabric, AGpuOutsideAnyFabricIsNotSupportedNotUnknown) {
    const auto r = record_fabric(builtin("bridged-a100-4x"));
    ASSERT_TRUE(r.has_value()) << r.error().message;
    for (const auto& gpu : r->gpus) {
        EXPECT_EQ(gpu.fabric, GpuFabric{});
    }
}

TEST(NvmlFabric, AFailingCallLeavesTheRegistrationUnknownNotTheRecord) {
    auto machine = snapshot::load_machine(builtin("hgx-b200-8x"));
    ASSERT_TRUE(machine);
    machine->faults.push_back(nvml_fault("nvmlDeviceGetGpuFabricInfoV", "fail", 999));
    const auto r = record_fabric(write_variant(*machine, "fails"));
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_FALSE(r->gpus[0].fabric.has_value());
    EXPECT_EQ(r->gpus[0].nvlink_slots, 18);
    EXPECT_TRUE(std::any_of(r->notes.begin(), r->notes.end(), [](const std::string& note) {
        return note.find("GPU 0 fabric registration unknown") != std::string::npos &&
               note.find("nvmlDeviceGetGpuFabricInfoV failed: 999") != std::string::npos;
    }));
}

TEST(NvmlMig, TheCurrentAndPendingModeComeBackAndNoMigIsAbsent) {
    auto machine = snapshot::load_machine(builtin("hgx-b200-8x"));
    ASSERT_TRUE(machine);
    machine->gpus[1].mig = model::MigMode{.enabled = true, .pending = true};
    machine->gpus[2].mig = model::MigMode{.enabled = false, .pending = true};
    machine->gpus[3].mig = model::MigMode{};
    const auto r = record_fabric(write_variant(*machine, "mig"));
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(r->gpus[1].mig, (model::MigMode{.enabled = true, .pending = true}));
    EXPECT_EQ(r->gpus[2].mig, (model::MigMode{.enabled = false, .pending = true}));
    EXPECT_EQ(r->gpus[3].mig, model::MigMode{});
    EXPECT_EQ(r->gpus[0].mig, std::nullopt) << "NOT_SUPPORTED: a GPU without MIG";
}

TEST(NvmlMig, AFailingCallLeavesTheModeUnknownWithANote) {
    auto machine = snapshot::load_machine(builtin("hgx-b200-8x"));
    ASSERT_TRUE(machine);
    machine->gpus[0].mig = model::MigMode{.enabled = true, .pending = true};
    machine->faults.push_back(nvml_fault("nvmlDeviceGetMigMode", "fail", 999));
    const auto r = record_fabric(write_variant(*machine, "mig-fails"));
    ASSERT_TRUE(r.has_value()) << r.error().message;
    EXPECT_EQ(r->gpus[0].mig, std::nullopt);
    EXPECT_TRUE(std::any_of(r->notes.begin(), r->notes.end(), [](const std::string& note) {
        return note.find("GPU 0 MIG mode unknown") != std::string::npos;
    }));
}

}  // namespace
}  // namespace peergate::testing_nvml
