// SPDX-License-Identifier: Apache-2.0
// peergate doctor's ACS layer end to end: a machine whose ports the simulated sysfs lays out.
#include "support/peergate_process.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::test {
namespace {

using Json = nlohmann::ordered_json;

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

}  // namespace
}  // namespace peergate::test
