// SPDX-License-Identifier: Apache-2.0
#include "sources/host/kernel_log_parser.hpp"

#include "dmesg_fixture.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::sources::host {
namespace {

using model::KernelEventKind;

using test::dmesg_fixture;
using test::pci;

TEST(KernelLogParser, ReadsXid63WithoutPciFunction) {
    const auto events =
        parse_kernel_log(dmesg_fixture("ml-engineering-nvdebug_xid63_row_remapper.txt"));
    ASSERT_EQ(events.size(), 1U);
    EXPECT_EQ(events[0].kind, KernelEventKind::xid);
    EXPECT_EQ(events[0].xid, 63);
    EXPECT_EQ(events[0].device, pci("0000:10:1c.0"));
    EXPECT_EQ(events[0].count, 1);
}

TEST(KernelLogParser, GroupsAmdViFaultsOfOneGpuFromSyslogLines) {
    const auto events = parse_kernel_log(dmesg_fixture("cuda-samples-48_amdvi_io_page_fault.txt"));
    ASSERT_EQ(events.size(), 1U);
    EXPECT_EQ(events[0].kind, KernelEventKind::amd_vi_fault);
    EXPECT_EQ(events[0].device, pci("0000:07:00.0"));
    EXPECT_EQ(events[0].count, 9);
    EXPECT_TRUE(events[0].line.starts_with("nvidia 0000:07:00.0: AMD-Vi")) << events[0].line;
}

TEST(KernelLogParser, CountsSuppressedFaultsPrintedBeforeTheFirstOne) {
    const auto events = parse_kernel_log(dmesg_fixture("llama.cpp-21908_amdvi_io_page_fault.txt"));
    ASSERT_EQ(events.size(), 1U);
    EXPECT_EQ(events[0].device, pci("0000:81:00.0"));
    EXPECT_EQ(events[0].count, 8);
    EXPECT_EQ(events[0].suppressed, 6);
}

TEST(KernelLogParser, ReadsDmarFaultsAndTheirSuppressedCount) {
    const auto events = parse_kernel_log(dmesg_fixture("onl-897_dmar_pte_write_not_set.txt"));
    ASSERT_EQ(events.size(), 1U);
    EXPECT_EQ(events[0].kind, KernelEventKind::dmar_fault);
    EXPECT_EQ(events[0].device, pci("00:12.0"));
    EXPECT_EQ(events[0].count, 3);
    EXPECT_EQ(events[0].suppressed, 2474);
}

// Faults of two devices stay two events; a suppression note counts against the latest.
TEST(KernelLogParser, FaultsOfTwoDevicesAndTheSuppressionOfTheLatest) {
    const auto events = parse_kernel_log(
        "DMAR: [DMA Write NO_PASID] Request device [41:00.0] fault addr 0x1000 [fault reason "
        "0x05] PTE Write access is not set\n"
        "DMAR: [DMA Write NO_PASID] Request device [81:00.0] fault addr 0x2000 [fault reason "
        "0x05] PTE Write access is not set\n"
        "dmar_fault: 12 callbacks suppressed\n");
    ASSERT_EQ(events.size(), 2U);
    EXPECT_EQ(events[0].device, pci("41:00.0"));
    EXPECT_EQ(events[0].suppressed, 0);
    EXPECT_EQ(events[1].device, pci("81:00.0"));
    EXPECT_EQ(events[1].suppressed, 12);
}

TEST(KernelLogParser, JoinsTheMultiLineFallenOffTheBusMessage) {
    const auto events = parse_kernel_log(dmesg_fixture("nvsentinel-155_fallen_off_bus.txt"));
    ASSERT_EQ(events.size(), 2U);
    EXPECT_EQ(events[0].kind, KernelEventKind::fallen_off_bus);
    EXPECT_EQ(events[0].device, pci("0000:b3:00.0"));
    EXPECT_EQ(events[1].kind, KernelEventKind::xid);
    EXPECT_EQ(events[1].xid, 79);
    EXPECT_EQ(events[1].device, pci("0000:44:00.0"));
}

TEST(KernelLogParser, ReadsTheOneLineFallenOffTheBusForm) {
    const auto events = parse_kernel_log(dmesg_fixture("bumblebee-554_gpu_at_fallen_off.txt"));
    ASSERT_EQ(events.size(), 1U);
    EXPECT_EQ(events[0].kind, KernelEventKind::fallen_off_bus);
    EXPECT_EQ(events[0].device, pci("0000:01:00.0"));
    EXPECT_EQ(events[0].count, 2);
}

TEST(KernelLogParser, DoesNotMistakeAnUnsupportedGpuMessageForAFallenGpu) {
    const auto events = parse_kernel_log(
        "NVRM: The NVIDIA GPU 0000:3b:00.0 (PCI ID: 10de:1db4)\n"
        "NVRM: installed in this system is not supported by the\n"
        "NVRM: NVIDIA 390.48 driver release.\n");
    EXPECT_TRUE(events.empty());
}

TEST(KernelLogParser, ReadsTheNewerDmarFormAndTheOldAmdViForm) {
    const auto events = parse_kernel_log(
        "[  12.5] DMAR: [DMA Write NO_PASID] Request device [0000:3b:00.0] fault addr 0x7f000 "
        "[fault reason 0x05] PTE Write access is not set\n"
        "kernel: [  221.565929] IO_PAGE_FAULT device=05:00.0 domain=0x0012 address=0xff6101b0 "
        "flags=0x0070]\n");
    ASSERT_EQ(events.size(), 2U);
    EXPECT_EQ(events[0].kind, KernelEventKind::dmar_fault);
    EXPECT_EQ(events[0].device, pci("0000:3b:00.0"));
    EXPECT_EQ(events[1].kind, KernelEventKind::amd_vi_fault);
    EXPECT_EQ(events[1].device, pci("05:00.0"));
}

TEST(KernelLogParser, SkipsMalformedLinesWithoutFailing) {
    const std::string garbage = std::string("NVRM: Xid (PCI:zz): x,\nNVRM: Xid (PCI:0000:10:1c\n") +
                                std::string(1U << 16U, '\xff') +
                                "\nDMAR: [DMA Read] Request device [\n";
    const auto events = parse_kernel_log(garbage);
    ASSERT_EQ(events.size(), 1U);  // the DMAR line without a device still counts, unnamed
    EXPECT_FALSE(events[0].device.has_value());
    EXPECT_TRUE(parse_kernel_log("").empty());
}

}  // namespace
}  // namespace peergate::sources::host
