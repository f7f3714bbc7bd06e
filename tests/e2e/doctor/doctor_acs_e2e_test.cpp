// SPDX-License-Identifier: Apache-2.0
// peergate doctor's ACS layer end to end: a machine whose ports the simulated sysfs lays out.
#include "support/peergate_process.hpp"
#include "support/sim_machines.hpp"
#include "util/atomic_file.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

using Json = nlohmann::ordered_json;
using test::ScratchDir;

const Json& pair(const Json& doc, int src, int dst) {
    for (const auto& p : doc["layers"]["peer_access"]["pairs"]) {
        if (p["src"] == src && p["dst"] == dst) {
            return p;
        }
    }
    static const Json none;
    return none;
}

TEST(DoctorAcs, RedirectBehindOneSwitchIsNamedWithItsPortAndRemedy) {
    const auto run =
        run_peergate({"--simulate", fixture_machine("acs-redirect-4x"), "doctor", "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;  // slow, not lossy
    const auto doc = stdout_json(run);
    EXPECT_EQ(pair(doc, 0, 1)["acs"], "redirect");
    EXPECT_EQ(pair(doc, 2, 3)["acs"], "off");
    EXPECT_EQ(pair(doc, 0, 2)["acs"], "not_shared");
    const Json* found = find_finding(doc, "acs_redirect");
    ASSERT_NE(found, nullptr) << doc.dump(2);
    EXPECT_EQ((*found)["gpus"], Json::array({0, 1}));
    EXPECT_NE((*found)["message"].get<std::string>().find("ACS redirect is on at 0000:04:08.0"),
              std::string::npos);
}

TEST(DoctorAcs, MachinesWithoutPortsReadNoSharedPort) {
    const auto doc =
        stdout_json(run_peergate({"--simulate", "rtx4090-8x-pcie", "doctor", "--json"}));
    EXPECT_EQ(pair(doc, 0, 1)["acs"], "not_shared");
    EXPECT_EQ(find_finding(doc, "acs_redirect"), nullptr);
}

TEST(DoctorAcs, PortsReadWithoutRootAreUnknownAndSaySo) {
    const ScratchDir scratch;
    auto machine = Json::parse(util::read_file(fixture_machine("acs-redirect-4x")).value());
    for (std::size_t gpu : {0U, 1U}) {
        machine["gpus"][gpu]["upstream_ports"][0]["acs_control"] = "unknown";
    }
    const std::string file = scratch.file("unread.json");
    ASSERT_TRUE(util::write_file_atomically(file, machine.dump()).has_value());
    const auto doc = stdout_json(run_peergate({"--simulate", file, "doctor", "--json"}));
    EXPECT_EQ(pair(doc, 0, 1)["acs"], "unknown");
    EXPECT_EQ(find_finding(doc, "acs_redirect"), nullptr);
    bool noted = false;
    for (const auto& note : doc["layers"]["peer_access"]["notes"]) {
        noted = noted || note.get<std::string>().find("run as root") != std::string::npos;
    }
    EXPECT_TRUE(noted) << doc["layers"]["peer_access"].dump(2);
}

}  // namespace
}  // namespace peergate::test
