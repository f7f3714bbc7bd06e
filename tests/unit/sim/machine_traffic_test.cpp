// SPDX-License-Identifier: Apache-2.0
// A machine file's "traffic" (snapshot/machine_traffic.hpp, docs/machine-file.md "traffic"):
// read, checked against the machine's GPUs and NVLinks, written back.
#include "snapshot/machine_file.hpp"
#include "snapshot/machine_file_text.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::sim {
namespace {

// GPUs 0 and 1 NVLinked, GPU 2 on PCIe only, with `traffic` (JSON text).
std::string machine_with_traffic(const std::string& traffic) {
    return R"({"schema": "peergate.machine/v1", "name": "traffic",
      "gpus": [{"index": 0, "pci_bus_id": "00000000:1B:00.0"},
               {"index": 1, "pci_bus_id": "00000000:43:00.0"},
               {"index": 2, "pci_bus_id": "00000000:52:00.0"}],
      "matrix": [["X", "NV4", "SYS"], ["NV4", "X", "SYS"], ["SYS", "SYS", "X"]],
      "traffic": )" +
           traffic + "}";
}

std::string error_of(const std::string& traffic) {
    const auto m = snapshot::parse_machine(machine_with_traffic(traffic));
    return m ? std::string("parsed") : m.error().message;
}

TEST(MachineTraffic, IsReadAndWrittenBackUnchanged) {
    const auto m = snapshot::parse_machine(machine_with_traffic(
        R"({"nvlink_counters": "aggregate", "pcie_counters": false, "start_kib": 18446744073709551000,
            "flows": [{"from": 0, "to": 1, "over": "nvlink", "gbps": 40, "start_s": 1, "stop_s": 3},
                      {"from": -1, "to": 2, "over": "pcie", "gbps": 12.5}]})"));
    ASSERT_TRUE(m.has_value()) << m.error().message;
    ASSERT_TRUE(m->traffic.has_value());
    EXPECT_EQ(m->traffic->nvlink_counters, "aggregate");
    EXPECT_FALSE(m->traffic->pcie_counters);
    EXPECT_EQ(m->traffic->start_kib, 18446744073709551000ULL);
    ASSERT_EQ(m->traffic->flows.size(), 2U);
    EXPECT_EQ(m->traffic->flows[0].stop_s, 3.0);
    EXPECT_EQ(m->traffic->flows[1].from, -1);
    const auto again = snapshot::parse_machine(snapshot::to_json_text(*m));
    ASSERT_TRUE(again.has_value()) << again.error().message;
    EXPECT_EQ(again->traffic, m->traffic);
}

TEST(MachineTraffic, AbsentIsNoneAndEmptyIsTheDefaults) {
    const auto none = snapshot::parse_machine(R"({"schema": "peergate.machine/v1",
      "gpus": [{"index": 0, "pci_bus_id": "00000000:1B:00.0"}], "matrix": [["X"]]})");
    ASSERT_TRUE(none.has_value()) << none.error().message;
    EXPECT_FALSE(none->traffic.has_value());
    const auto empty = snapshot::parse_machine(machine_with_traffic("{}"));
    ASSERT_TRUE(empty.has_value()) << empty.error().message;
    EXPECT_EQ(empty->traffic, snapshot::MachineTraffic{});
}

TEST(MachineTraffic, EachWrongFieldIsNamed) {
    const std::pair<const char*, const char*> cases[] = {
        {R"({"nvlink_counters": "some"})", "traffic.nvlink_counters"},
        {R"({"pcie_counters": 1})", "traffic.pcie_counters"},
        {R"({"start_kib": -1})", "traffic.start_kib"},
        {R"({"flows": {}})", "traffic.flows"},
        {R"({"flows": [{"from": 0, "to": 7, "over": "nvlink", "gbps": 1}]})",
         "traffic.flows[0].to"},
        {R"({"flows": [{"to": 1, "gbps": 1}]})", "traffic.flows[0].from"},
        {R"({"flows": [{"from": 0, "to": 1, "over": "ib", "gbps": 1}]})", "traffic.flows[0].over"},
        {R"({"flows": [{"from": 0, "to": 1, "over": "nvlink", "gbps": -2}]})",
         "traffic.flows[0].gbps"},
        {R"({"flows": [{"from": 0, "to": 1, "over": "nvlink", "gbps": 1, "start_s": -1}]})",
         "traffic.flows[0].start_s"},
        {R"({"flows": [{"from": 0, "to": 1, "over": "nvlink", "gbps": 1, "start_s": 3, "stop_s": 2}]})",
         "stop_s comes before start_s"},
        {R"({"flows": [{"from": 1, "to": 1, "over": "pcie", "gbps": 1}]})", "to itself"},
        {R"({"flows": [{"from": 0, "to": 2, "over": "nvlink", "gbps": 1}]})", "share no NVLink"},
        {R"({"flows": [{"from": -1, "to": 1, "over": "nvlink", "gbps": 1}]})", "share no NVLink"},
        {R"([1])", "traffic: expected an object"},
    };
    for (const auto& [traffic, expected] : cases) {
        SCOPED_TRACE(traffic);
        EXPECT_NE(error_of(traffic).find(expected), std::string::npos) << error_of(traffic);
    }
}

TEST(MachineTraffic, AtMostSoManyFlows) {
    std::string flows = "[";
    for (int k = 0; k < 1025; ++k) {
        flows +=
            std::string(k == 0 ? "" : ",") + R"({"from": 0, "to": 1, "over": "pcie", "gbps": 1})";
    }
    EXPECT_NE(error_of(R"({"flows": )" + flows + "]}").find("at most 1024"), std::string::npos);
}

}  // namespace
}  // namespace peergate::sim
