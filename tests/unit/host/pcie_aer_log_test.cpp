// SPDX-License-Identifier: Apache-2.0
// PCIe AER reports in real kernel logs (tests/fixtures/dmesg, provenance in its README):
// each block of lines is one report, grouped by device and severity, in every form the
// kernel has printed (sources/host/pcie_aer_log).
#include "sources/host/pcie_aer_log.hpp"

#include "dmesg_fixture.hpp"
#include "sources/host/kernel_log_parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace peergate::sources::host {
namespace {

using model::AerSeverity;
using model::KernelEventKind;

using test::dmesg_fixture;
using test::pci;

TEST(PcieAerLog, EverySpellingOfAPciAddress) {
    EXPECT_EQ(parse_log_pci_address("0000:41:00.0"), pci("0000:41:00.0"));
    EXPECT_EQ(parse_log_pci_address("41:00.0"), pci("0000:41:00.0"));
    EXPECT_EQ(parse_log_pci_address("PCI:0000:41:00"), pci("0000:41:00.0"));
    EXPECT_EQ(parse_log_pci_address("[0x41:0x00.0]"), pci("0000:41:00.0"));
    EXPECT_EQ(parse_log_pci_address("device=41:00.1"), pci("0000:41:00.1"));
    EXPECT_EQ(parse_log_pci_address("0000:00:03.1:"), pci("0000:00:03.1"));
    EXPECT_FALSE(parse_log_pci_address("kernel:").has_value());
    EXPECT_FALSE(parse_log_pci_address("[12]").has_value());
}

TEST(PcieAerLog, CorrectableReportsOfLinux6FromSyslog) {
    const auto events = parse_kernel_log(dmesg_fixture("pop-os-3363_aer_correctable_syslog.txt"));
    ASSERT_EQ(events.size(), 1U);
    const auto& event = events[0];
    EXPECT_EQ(event.kind, KernelEventKind::pcie_aer);
    EXPECT_EQ(event.device, pci("0000:00:03.1"));
    EXPECT_EQ(event.count, 2);
    ASSERT_TRUE(event.aer.has_value());
    EXPECT_EQ(event.aer->severity, AerSeverity::corrected);
    EXPECT_EQ(event.aer->layer, "Data Link Layer");
    EXPECT_EQ(event.aer->errors, (std::vector<std::string>{"Timeout", "BadTLP"}));
    EXPECT_EQ(event.aer->port, pci("0000:00:03.1"));
}

TEST(PcieAerLog, TheOlderFormWithARequesterId) {
    const auto events = parse_kernel_log(dmesg_fixture("raspberry-pi-pcie-64_aer_old_id_form.txt"));
    ASSERT_EQ(events.size(), 1U);
    EXPECT_EQ(events[0].device, pci("0000:00:1d.0"));
    EXPECT_EQ(events[0].count, 3);
    EXPECT_EQ(events[0].aer->layer, "Physical Layer");
    EXPECT_EQ(events[0].aer->errors, (std::vector<std::string>{"Receiver Error"}));
}

TEST(PcieAerLog, ThePortAndTheDeviceBelowItAreTwoReports) {
    const auto events = parse_kernel_log(dmesg_fixture("pop-os-751_aer_port_and_device.txt"));
    ASSERT_EQ(events.size(), 2U);
    EXPECT_EQ(events[0].device, pci("0000:00:1d.0"));
    EXPECT_EQ(events[0].count, 2);
    EXPECT_EQ(events[1].device, pci("0000:03:00.0"));
    EXPECT_EQ(events[1].count, 1);
    EXPECT_EQ(events[1].aer->port, pci("0000:00:1d.0")) << "the port that received it";
    EXPECT_EQ(events[1].aer->errors, (std::vector<std::string>{"RxErr"}));
}

TEST(PcieAerLog, ALocalisedJournalAndAnIdNamingAFunction) {
    const auto events = parse_kernel_log(dmesg_fixture("nbfc-181_aer_localised_journal.txt"));
    ASSERT_EQ(events.size(), 1U);
    EXPECT_EQ(events[0].device, pci("0000:00:1c.5"));
    EXPECT_EQ(events[0].aer->severity, AerSeverity::corrected);
}

TEST(PcieAerLog, AFatalReportAndAStrayBitLine) {
    const auto events = parse_kernel_log(dmesg_fixture("vgpu-unlock-114_aer_fatal_sdes.txt"));
    ASSERT_EQ(events.size(), 1U);
    EXPECT_EQ(events[0].device, pci("0000:00:01.1"));
    EXPECT_EQ(events[0].aer->severity, AerSeverity::uncorrected_fatal);
    EXPECT_EQ(events[0].aer->layer, "Transaction Layer");
    EXPECT_TRUE(events[0].aer->errors.empty()) << "the bit line came before its report";
}

// The uncorrected non-fatal block of a GPU, as Linux 5.x prints it (the published format of
// drivers/pci/pcie/aer.c: no real sample with a GPU's CmpltTO was found).
TEST(PcieAerLog, AnUncorrectedReportOfAGpuBelowItsRootPort) {
    const std::string log =
        "[ 812.1] pcieport 0000:40:01.1: AER: Uncorrected (Non-Fatal) error received: "
        "0000:41:00.0\n"
        "[ 812.1] nvidia 0000:41:00.0: AER: PCIe Bus Error: severity=Uncorrected (Non-Fatal), "
        "type=Transaction Layer, (Requester ID)\n"
        "[ 812.1] nvidia 0000:41:00.0: AER:   device [10de:2330] error status/mask=00204000/"
        "00000000\n"
        "[ 812.1] nvidia 0000:41:00.0: AER:    [14] CmpltTO                (First)\n"
        "[ 812.1] nvidia 0000:41:00.0: AER:    [21] ACSViol\n"
        "[ 812.1] nvidia 0000:41:00.0: AER:   TLP Header: 40000001 0000000f 8e7fc000 00000000\n"
        "[ 812.2] NVRM: Xid (PCI:0000:41:00): 79, pid=1, GPU has fallen off the bus.\n";
    const auto events = parse_kernel_log(log);
    ASSERT_EQ(events.size(), 2U);
    EXPECT_EQ(events[0].kind, KernelEventKind::pcie_aer);
    EXPECT_EQ(events[0].device, pci("0000:41:00.0"));
    EXPECT_EQ(events[0].aer->severity, AerSeverity::uncorrected_nonfatal);
    EXPECT_EQ(events[0].aer->port, pci("0000:40:01.1"));
    EXPECT_EQ(events[0].aer->errors, (std::vector<std::string>{"CmpltTO", "ACSViol"}));
    EXPECT_EQ(events[1].kind, KernelEventKind::xid);
    EXPECT_EQ(events[1].device, pci("0000:41:00.0"));
}

TEST(PcieAerLog, AReceivedLineNoReportFollowsNamesItsDevice) {
    const auto events = parse_kernel_log(
        "pcieport 0000:00:02.0: AER: Uncorrected (Fatal) error received: 0000:01:00.0\n"
        "pcieport 0000:00:02.0: AER: can't find device of ID0100\n");
    ASSERT_EQ(events.size(), 1U);
    EXPECT_EQ(events[0].device, pci("0000:01:00.0"));
    EXPECT_EQ(events[0].aer->severity, AerSeverity::uncorrected_fatal);
}

TEST(PcieAerLog, CorrectedAndFatalOnOneDeviceAreTwoGroups) {
    const auto events = parse_kernel_log(
        "pcieport 0000:00:01.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, "
        "(Receiver ID)\n"
        "pcieport 0000:00:01.0: PCIe Bus Error: severity=Uncorrected (Fatal), type=Transaction "
        "Layer, (Receiver ID)\n"
        "pcieport 0000:00:01.0: PCIe Bus Error: severity=Corrected, type=Physical Layer, "
        "(Receiver ID)\n");
    ASSERT_EQ(events.size(), 2U);
    EXPECT_EQ(events[0].count, 2);
    EXPECT_EQ(events[1].aer->severity, AerSeverity::uncorrected_fatal);
}

}  // namespace
}  // namespace peergate::sources::host
