// SPDX-License-Identifier: Apache-2.0
// Where ACS sends a pair's traffic, and the doctor's finding (policy/doctor/acs.cpp).
#include "policy/doctor/acs.hpp"
#include "support/pci_builders.hpp"

#include <gtest/gtest.h>

#include <tuple>

namespace peergate::policy::doctor {
namespace {

using test::port;

using State = AcsPath::State;

// Two GPUs behind one switch (upstream port 03:00.0) under root port 00:01.0, with the given
// ACS control on their downstream ports.
std::pair<std::vector<model::PciPort>, std::vector<model::PciPort>> switch_pair(
    std::optional<std::uint16_t> first, std::optional<std::uint16_t> second) {
    return {{port("0000:04:08.0", first), port("0000:03:00.0", {}), port("0000:00:01.0", 0x1d)},
            {port("0000:04:10.0", second), port("0000:03:00.0", {}), port("0000:00:01.0", 0x1d)}};
}

TEST(AcsPath, RedirectOnEitherDownstreamPortSendsTheTrafficUp) {
    const auto [a, b] = switch_pair(0x0000, 0x001d);
    const auto path = acs_path(a, b);
    EXPECT_EQ(path.state, State::redirect);
    EXPECT_EQ(path.shared->to_sysfs(), "0000:03:00.0");
    EXPECT_EQ(path.port->address.to_sysfs(), "0000:04:10.0");
    EXPECT_EQ(acs_path(b, a).state, State::redirect);
}

TEST(AcsPath, PortsAboveTheSharedOneDoNotMatter) {
    const auto [a, b] = switch_pair(0x0000, std::nullopt);  // no ACS capability: no redirect
    const auto path = acs_path(a, b);
    EXPECT_EQ(path.state, State::off);  // the root port's 0x001d is above the switch
    EXPECT_EQ(to_string(path.state), "off");
}

// ACS redirect acts at downstream and root ports; the switch's upstream port, where the two
// paths meet, forwards their peer traffic across the switch whatever its own bits say.
TEST(AcsPath, TheSharedUpstreamPortsOwnBitsDoNotRedirect) {
    auto [a, b] = switch_pair(0x0000, 0x0000);
    a[1] = port("0000:03:00.0", 0x001d);
    b[1] = port("0000:03:00.0", 0x001d);
    EXPECT_EQ(acs_path(a, b).state, State::off);
}

TEST(AcsPath, AnUnreadPortBetweenThemIsUnknownUnlessAnotherRedirects) {
    auto [a, b] = switch_pair(0x0000, 0x0000);
    b[0] = port("0000:04:10.0", std::nullopt, true);
    EXPECT_EQ(acs_path(a, b).state, State::unknown);
    a[0] = port("0000:04:08.0", 0x000c);
    EXPECT_EQ(acs_path(a, b).state, State::redirect);
}

TEST(AcsPath, GpusOnDifferentRootPortsShareNothing) {
    const std::vector<model::PciPort> a{port("0000:00:01.0", 0x1d)};
    const std::vector<model::PciPort> b{port("0000:80:01.0", 0x1d)};
    EXPECT_EQ(acs_path(a, b).state, State::not_shared);
    EXPECT_EQ(acs_path({}, {}).state, State::not_shared);
}

TEST(AcsFinding, NamesTheFirstPairThePortAndTheBitsAndCountsTheRest) {
    DoctorInput input;
    const auto [a, b] = switch_pair(0x001d, 0x001d);
    input.ports[0] = a;
    input.ports[1] = b;
    input.ports[2] = {port("0000:04:18.0", 0x001d), port("0000:03:00.0", {})};
    for (int src = 0; src < 3; ++src) {
        for (int dst = 0; dst < 3; ++dst) {
            if (src != dst) {
                input.pairs.push_back(PairLayers{.src = src, .dst = dst});
            }
        }
    }
    const auto f = acs_redirect_finding(input);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->id(), "acs_redirect");
    EXPECT_EQ(f->severity, model::Severity::warning);
    EXPECT_EQ(f->gpus, (std::vector<int>{0, 1, 2}));
    EXPECT_EQ(f->message,
              "GPU 0 and GPU 1 sit below the same PCIe port (0000:03:00.0), but ACS redirect is "
              "on at 0000:04:08.0 (SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ "
              "EgressCtrl- DirectTrans-): their peer traffic goes up to the root complex (and its "
              "IOMMU) instead of across the switch; 2 more pairs likewise");
    EXPECT_NE(f->remedy.find("setpci -s 0000:04:08.0 ECAP_ACS+0x6.w=0000"), std::string::npos);
    EXPECT_NE(f->remedy.find("pci=disable_acs_redir=0000:04:08.0"), std::string::npos);
    input.ports[0][0].acs = model::AcsControl{0x0011};
    input.ports[1][0].acs = model::AcsControl{0x0011};
    input.ports[2][0].acs = model::AcsControl{0x0011};
    EXPECT_FALSE(acs_redirect_finding(input).has_value());
}

TEST(AcsFinding, OneMorePairIsSingular) {
    DoctorInput input;
    std::tie(input.ports[0], input.ports[1]) = switch_pair(0x001d, 0x001d);
    input.pairs = {PairLayers{.src = 0, .dst = 1}, PairLayers{.src = 1, .dst = 0}};
    EXPECT_FALSE(acs_redirect_finding(input)->message.ends_with("likewise"))
        << "a pair's two directions are one pair";
    input.ports[2] = {port("0000:04:18.0", 0x0000), port("0000:03:00.0", {})};
    input.pairs.push_back(PairLayers{.src = 0, .dst = 2});
    EXPECT_TRUE(acs_redirect_finding(input)->message.ends_with("; 1 more pair likewise"))
        << acs_redirect_finding(input)->message;
}

}  // namespace
}  // namespace peergate::policy::doctor
