// SPDX-License-Identifier: Apache-2.0
// A GPU's NVSwitch fabric registration and MIG mode in a machine file: read, checked,
// written back.
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::sim {
namespace {

// Two NVLinked GPUs, the first with `key` set to `value` (JSON text).
std::string machine_with_gpu_field(const std::string& key, const std::string& value) {
    return R"({"schema": "peergate.machine/v1", "name": "modes",
      "gpus": [{"index": 0, "pci_bus_id": "00000000:1B:00.0", ")" +
           key + R"(": )" + value + R"(},
               {"index": 1, "pci_bus_id": "00000000:43:00.0"}],
      "matrix": [["X", "NV18"], ["NV18", "X"]]})";
}

std::string machine_with_fabric(const std::string& fabric) {
    return machine_with_gpu_field("fabric", fabric);
}

std::string machine_with_mig(const std::string& mig) {
    return machine_with_gpu_field("mig", mig);
}

TEST(MachineFabric, IsReadAndWrittenBackUnchanged) {
    const auto m = snapshot::parse_machine(machine_with_fabric(
        R"({"state": "completed", "status": 0, "clique_id": 4026,
            "cluster_uuid": "9c6f5af3-53bf-49b5-a436-b66766c413c3", "health_mask": 2})"));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    ASSERT_TRUE(m->gpus[0].fabric.has_value());
    EXPECT_EQ(m->gpus[0].fabric->state, model::FabricState::completed);
    EXPECT_EQ(m->gpus[0].fabric->clique_id, 4026U);
    EXPECT_EQ(m->gpus[0].fabric->cluster_uuid, "9c6f5af3-53bf-49b5-a436-b66766c413c3");
    EXPECT_EQ(m->gpus[0].fabric->health_mask, 2U);
    EXPECT_TRUE(m->gpus[0].fabric->ready());
    EXPECT_FALSE(m->gpus[0].fabric->bandwidth_degraded()) << "2 is DEGRADED_BW FALSE";
    EXPECT_FALSE(m->gpus[1].fabric.has_value());
    const auto again = snapshot::parse_machine(snapshot::to_json_text(*m));
    ASSERT_TRUE(again.has_value()) << again.error().message;
    EXPECT_EQ(*again, *m);
}

TEST(MachineFabric, OnlyTheStateIsRequired) {
    const auto m = snapshot::parse_machine(machine_with_fabric(R"({"state": "in_progress"})"));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    EXPECT_EQ(m->gpus[0].fabric, (model::GpuFabric{.state = model::FabricState::in_progress}));
    EXPECT_TRUE(snapshot::fabric_unregistered(*m));
}

TEST(MachineFabric, AnUnregisteredGpuIsWhatCudaRefusesToStartOn) {
    const auto completed =
        snapshot::parse_machine(machine_with_fabric(R"({"state": "completed"})"));
    const auto failed =
        snapshot::parse_machine(machine_with_fabric(R"({"state": "completed", "status": 999})"));
    const auto outside =
        snapshot::parse_machine(machine_with_fabric(R"({"state": "not_supported"})"));
    ASSERT_TRUE(completed && failed && outside);
    EXPECT_FALSE(snapshot::fabric_unregistered(*completed));
    EXPECT_TRUE(snapshot::fabric_unregistered(*failed));
    EXPECT_FALSE(snapshot::fabric_unregistered(*outside));
}

TEST(MachineFabric, BadRegistrationsAreErrorsNamingTheField) {
    const std::pair<std::string, std::string> cases[] = {
        {R"({"status": 0})", "gpus[0].fabric.state: one of"},
        {R"({"state": "Completed"})", "gpus[0].fabric.state: one of"},
        {R"({"state": 3})", "gpus[0].fabric.state"},
        {R"({"state": "completed", "status": "Success"})", "gpus[0].fabric.status"},
        {R"({"state": "completed", "clique_id": -1})", "gpus[0].fabric.clique_id"},
        {R"({"state": "completed", "health_mask": 4294967296})", "gpus[0].fabric.health_mask"},
        {R"({"state": "completed", "cluster_uuid": "9c6f5af3"})", "gpus[0].fabric.cluster_uuid"},
        {R"({"state": "completed", "cluster_uuid": "9c6f5af3-53bf-49b5-a436-b66766c413cz"})",
         "gpus[0].fabric.cluster_uuid"},
        {R"("completed")", "gpus[0].fabric"},
    };
    for (const auto& [fabric, named] : cases) {
        const auto m = snapshot::parse_machine(machine_with_fabric(fabric));
        ASSERT_FALSE(m.has_value()) << fabric;
        EXPECT_NE(m.error().message.find(named), std::string::npos)
            << fabric << ": " << m.error().message;
    }
}

TEST(MachineMig, IsReadAndWrittenBackWithPendingDefaultingToTheCurrentMode) {
    const auto m = snapshot::parse_machine(machine_with_mig(R"({"enabled": true})"));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    EXPECT_EQ(m->gpus[0].mig, (model::MigMode{.enabled = true, .pending = true}));
    EXPECT_FALSE(m->gpus[1].mig.has_value());
    const auto changing =
        snapshot::parse_machine(machine_with_mig(R"({"enabled": false, "pending": true})"));
    ASSERT_TRUE(changing.has_value()) << changing.error().message;
    const auto again = snapshot::parse_machine(snapshot::to_json_text(*changing));
    ASSERT_TRUE(again.has_value()) << again.error().message;
    EXPECT_EQ(*again, *changing);
    EXPECT_EQ(again->gpus[0].mig, (model::MigMode{.enabled = false, .pending = true}));
}

TEST(MachineMig, BadModesAreErrorsNamingTheField) {
    for (const char* bad : {R"({"pending": true})",
                            R"({"enabled": 1})",
                            R"({"enabled": true, "pending": "yes"})",
                            R"(true)"}) {
        const auto m = snapshot::parse_machine(machine_with_mig(bad));
        ASSERT_FALSE(m.has_value()) << bad;
        EXPECT_NE(m.error().message.find("gpus[0].mig"), std::string::npos)
            << bad << ": " << m.error().message;
    }
}

}  // namespace
}  // namespace peergate::sim
