// SPDX-License-Identifier: Apache-2.0
// A GPU's NVLink error counters in a machine file: read, checked and written back. What the
// simulated NVML answers from them is tested through dlopen (tests/loader/nvml).
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::sim {
namespace {

std::string machine_with_nvlink_errors(const std::string& errors) {
    return R"({"schema": "peergate.machine/v1", "name": "errors",
      "gpus": [{"index": 0, "pci_bus_id": "00000000:05:00.0", "nvlink_slots": 4,
                "nvlink_errors": )" +
           errors + R"(},
               {"index": 1, "pci_bus_id": "00000000:06:00.0", "nvlink_slots": 4}],
      "matrix": [["X", "NV4"], ["NV4", "X"]]})";
}

const std::string kErrors =
    R"([{"link": 1, "replay": 1200, "recovery": 2, "crc_flit": 310},
        {"link": 3, "replay": 0, "recovery": 0, "crc_flit": 0, "crc_data": 0,
         "growth": {"replay": 40, "recovery": 1}}])";

TEST(MachineNvlinkErrors, AreReadAndWrittenBackUnchanged) {
    const auto m = snapshot::parse_machine(machine_with_nvlink_errors(kErrors));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    const auto& errors = m->gpus[0].nvlink_errors;
    ASSERT_EQ(errors.size(), 2U);
    EXPECT_EQ(errors[0].link, 1);
    EXPECT_EQ(errors[0].counts[model::NvlinkCounter::replay], 1200U);
    EXPECT_EQ(errors[0].counts[model::NvlinkCounter::recovery], 2U);
    EXPECT_FALSE(errors[0].counts[model::NvlinkCounter::crc_data].has_value());
    EXPECT_EQ(errors[1].growth[0], 40U);
    EXPECT_EQ(errors[1].growth[1], 1U);
    EXPECT_TRUE(m->gpus[1].nvlink_errors.empty());
    const auto again = snapshot::parse_machine(snapshot::to_json_text(*m));
    ASSERT_TRUE(again.has_value()) << again.error().message;
    EXPECT_EQ(*again, *m);
}

TEST(MachineNvlinkErrors, Nvlink5CountersAndTheGpusCounterSetRoundTrip) {
    const std::string text = machine_with_nvlink_errors(
        R"([{"link": 2, "link_recovery_events": 1, "effective_errors": 7,
             "growth": {"effective_errors": 25}}], "nvlink_counters": "nvlink5")");
    const auto m = snapshot::parse_machine(text);
    ASSERT_TRUE(m.has_value()) << m.error().message;
    EXPECT_EQ(m->gpus[0].nvlink_counters, model::NvlinkCounterSet::nvlink5);
    EXPECT_EQ(m->gpus[1].nvlink_counters, model::NvlinkCounterSet::dl);  // the default
    const auto& counts = m->gpus[0].nvlink_errors[0].counts;
    EXPECT_EQ(counts[model::NvlinkCounter::link_recovery_events], 1U);
    EXPECT_EQ(counts[model::NvlinkCounter::effective_errors], 7U);
    EXPECT_FALSE(counts[model::NvlinkCounter::replay].has_value());
    const auto written = snapshot::to_json_text(*m);
    EXPECT_NE(written.find(R"("nvlink_counters": "nvlink5")"), std::string::npos) << written;
    const auto again = snapshot::parse_machine(written);
    ASSERT_TRUE(again.has_value()) << again.error().message;
    EXPECT_EQ(*again, *m);
    const auto bad =
        snapshot::parse_machine(machine_with_nvlink_errors(R"([], "nvlink_counters": "nvlink4")"));
    ASSERT_FALSE(bad.has_value());
    EXPECT_NE(bad.error().message.find("gpus[0].nvlink_counters: expected \"dl\" or"),
              std::string::npos)
        << bad.error().message;
}

TEST(MachineNvlinkErrors, BadEntriesAreErrorsNamingTheField) {
    const std::pair<std::string, std::string> cases[] = {
        {R"([{"replay": 1}])", "gpus[0].nvlink_errors[0].link"},
        {R"([{"link": 64}])", "gpus[0].nvlink_errors[0].link"},
        {R"([{"link": 1, "replay": -3}])", "gpus[0].nvlink_errors[0].replay"},
        {R"([{"link": 1, "crc_flit": "many"}])", "gpus[0].nvlink_errors[0].crc_flit"},
        {R"([{"link": 1, "growth": 5}])", "gpus[0].nvlink_errors[0].growth"},
        {R"([{"link": 1, "growth": {"recovery": 1.5}}])",
         "gpus[0].nvlink_errors[0].growth.recovery"},
        {R"([{"link": 1}, {"link": 1}])", "link 1 is listed twice"},
        {R"({"link": 1})", "nvlink_errors"},
    };
    for (const auto& [errors, named] : cases) {
        const auto m = snapshot::parse_machine(machine_with_nvlink_errors(errors));
        ASSERT_FALSE(m.has_value()) << errors;
        EXPECT_NE(m.error().message.find(named), std::string::npos)
            << errors << ": " << m.error().message;
    }
}

}  // namespace
}  // namespace peergate::sim
