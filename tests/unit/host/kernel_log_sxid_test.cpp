// SPDX-License-Identifier: Apache-2.0
// NVSwitch errors (SXid) are read as their own kind, never as a GPU's Xid: the lines look
// alike ("nvidia-nvswitch3: SXid (PCI:0000:04:00.0): 22013, ...") but the number space,
// the device and the meaning differ (docs/driver-facts.md, "SXid: NVSwitch errors").
#include "dmesg_fixture.hpp"
#include "sources/host/kernel_log_parser.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace peergate::sources::host {
namespace {

using model::KernelEventKind;
using test::dmesg_fixture;
using test::pci;

TEST(KernelLogSxid, NonFatalMinionErrorsOfOneSwitchAreOneSxidEvent) {
    const auto events = parse_kernel_log(dmesg_fixture("nvtrust-124_sxid22013_nvswitch_dmesg.txt"));
    ASSERT_EQ(events.size(), 1U);
    const auto& e = events[0];
    EXPECT_EQ(e.kind, KernelEventKind::sxid);
    EXPECT_FALSE(e.xid.has_value());
    EXPECT_EQ(e.device, pci("0000:04:00.0"));
    ASSERT_TRUE(e.sxid.has_value());
    EXPECT_EQ(e.sxid->number, 22013);
    EXPECT_EQ(e.sxid->fatal, false);
    EXPECT_EQ(e.sxid->links, (std::vector<int>{44, 45, 46}));
    EXPECT_EQ(e.sxid->description, "Minion Link DLREQ interrupt");
    EXPECT_EQ(e.count, 3);  // three errors, each printed as Data, severity and Severity lines
}

TEST(KernelLogSxid, FatalSxidsPerSwitchBesideTheGpuThatFellOff) {
    const auto events =
        parse_kernel_log(dmesg_fixture("gpud-readme_xid79_sxid20034_fatal_ltssm.txt"));
    ASSERT_EQ(events.size(), 5U);
    EXPECT_EQ(events[0].kind, KernelEventKind::xid);
    EXPECT_EQ(events[0].xid, 79);
    EXPECT_EQ(events[0].device, pci("0000:91:00.0"));
    EXPECT_EQ(events[1].kind, KernelEventKind::fallen_off_bus);
    EXPECT_EQ(events[1].device, pci("0000:91:00.0"));
    const std::vector<std::pair<const char*, std::vector<int>>> switches{
        {"0000:06:00.0", {48}}, {"0000:05:00.0", {63, 62}}, {"0000:07:00.0", {37}}};
    for (std::size_t k = 0; k < switches.size(); ++k) {
        const auto& e = events[2 + k];
        SCOPED_TRACE(switches[k].first);
        EXPECT_EQ(e.kind, KernelEventKind::sxid);
        EXPECT_EQ(e.device, pci(switches[k].first));
        ASSERT_TRUE(e.sxid.has_value());
        EXPECT_EQ(e.sxid->number, 20034);
        EXPECT_EQ(e.sxid->fatal, true);
        EXPECT_EQ(e.sxid->links, switches[k].second);
        EXPECT_EQ(e.sxid->description, "LTSSM Fault Up");
        EXPECT_EQ(e.count, static_cast<int>(switches[k].second.size()));
    }
}

TEST(KernelLogSxid, ASxidWhoseSeverityLineWasCutHasAnUnknownSeverity) {
    const auto events = parse_kernel_log(
        "[ 1.0] nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 12028, Data {0x1, 0x2}\n");
    ASSERT_EQ(events.size(), 1U);
    EXPECT_EQ(events[0].kind, KernelEventKind::sxid);
    ASSERT_TRUE(events[0].sxid.has_value());
    EXPECT_EQ(events[0].sxid->number, 12028);
    EXPECT_FALSE(events[0].sxid->fatal.has_value());
    EXPECT_TRUE(events[0].sxid->links.empty());
    EXPECT_EQ(events[0].count, 1);
}

TEST(KernelLogSxid, AGpuXidLineIsStillAnXid) {
    const auto events = parse_kernel_log(
        "NVRM: Xid (PCI:0000:3b:00): 74, pid=12, name=python, NVLink: fatal error detected\n"
        "nvidia-nvswitch1: SXid (PCI:0000:06:00.0): 24007, Fatal, Link 12 something\n");
    ASSERT_EQ(events.size(), 2U);
    EXPECT_EQ(events[0].kind, KernelEventKind::xid);
    EXPECT_EQ(events[0].xid, 74);
    EXPECT_EQ(events[1].kind, KernelEventKind::sxid);
    EXPECT_EQ(events[1].sxid->description, "something");
}

}  // namespace
}  // namespace peergate::sources::host
