// SPDX-License-Identifier: Apache-2.0
// Every prefix a kernel message arrives with (sources/host/log_line_prefix), each form its
// own case. Lines marked "real" are as published, with their source; the others are written
// from the tool's documented output format.
#include "sources/host/log_line_prefix.hpp"

#include "sources/host/kernel_log_parser.hpp"

#include <gtest/gtest.h>

namespace peergate::sources::host {
namespace {

constexpr std::string_view kXid =
    "NVRM: Xid (PCI:0000:41:00): 79, pid=1234, GPU has fallen off the bus.";

std::string_view strip(std::string_view line) {
    return strip_log_line_prefix(line);
}

TEST(LogLinePrefix, Dmesg) {
    EXPECT_EQ(strip("[   12.345678] NVRM: Xid (PCI:0000:41:00): 79, pid=1234, GPU has fallen off "
                    "the bus."),
              kXid);
    EXPECT_EQ(strip("[12345.678901] pcieport 0000:00:03.0: AER: x"),
              "pcieport 0000:00:03.0: AER: x");
}

TEST(LogLinePrefix, DmesgHumanDates) {
    EXPECT_EQ(strip("[Tue Dec  1 12:00:00 2026] NVRM: x"), "NVRM: x");  // dmesg -T
    EXPECT_EQ(strip("[Dec 1 12:00] NVRM: x"), "NVRM: x");               // dmesg -H
}

TEST(LogLinePrefix, DmesgDeltas) {
    EXPECT_EQ(strip("[  +0.000316] NVRM: x"), "NVRM: x");
    EXPECT_EQ(strip("[<    0.000316>] NVRM: x"), "NVRM: x");
    EXPECT_EQ(strip("[  123.456789 <    0.000316>] NVRM: x"), "NVRM: x");  // dmesg -d
}

TEST(LogLinePrefix, DmesgDecode) {
    EXPECT_EQ(strip("kern  :err   : [   12.345678] NVRM: x"), "NVRM: x");
    EXPECT_EQ(strip("kern  :warn  : NVRM: x"), "NVRM: x");
}

// Real: qualcomm-linux/kernel pull request #1118 (a kernel built with CONFIG_PRINTK_CALLER).
TEST(LogLinePrefix, DmesgCallerId) {
    EXPECT_EQ(
        strip("[   36.764462][  T291] ath11k_pci 0000:01:00.0:    [ 0] RxErr                  "
              "(First)"),
        "ath11k_pci 0000:01:00.0:    [ 0] RxErr                  (First)");
}

TEST(LogLinePrefix, JournalShortAndPrecise) {
    EXPECT_EQ(strip("Dec 01 12:00:00 host kernel: NVRM: x"), "NVRM: x");
    EXPECT_EQ(strip("Dec 01 12:00:00.123456 host kernel: NVRM: x"), "NVRM: x");
}

TEST(LogLinePrefix, JournalShortIso) {
    EXPECT_EQ(strip("2026-12-01T12:00:00+0000 host kernel: NVRM: x"), "NVRM: x");
    EXPECT_EQ(strip("2026-12-01T12:00:00+01:00 host kernel: NVRM: x"), "NVRM: x");
}

TEST(LogLinePrefix, JournalShortMonotonic) {
    EXPECT_EQ(strip("[   12.345678] host kernel: NVRM: x"), "NVRM: x");
}

// Real: hirschmann/nbfc issue #181 ("jan.", a Norwegian locale) and
// GSConnect/gnome-shell-extension-gsconnect issue #1052 ("фев", Russian, no host).
TEST(LogLinePrefix, JournalInALocalisedMonth) {
    EXPECT_EQ(strip("jan. 29 20:50:17 kevin kernel: pcieport 0000:00:1c.5: AER: Corrected error "
                    "received: id=00e5"),
              "pcieport 0000:00:1c.5: AER: Corrected error received: id=00e5");
    EXPECT_EQ(strip("фев 12 00:48:02 kernel: pcieport 0000:00:1c.5: AER:    [ 0] RxErr"),
              "pcieport 0000:00:1c.5: AER:    [ 0] RxErr");
}

// Real: pop-os/pop issue #3363 (syslog with dmesg's time inside).
TEST(LogLinePrefix, SyslogAndKernLog) {
    EXPECT_EQ(strip("Sep 19 16:18:02 bubz kernel: [68183.615826] pcieport 0000:00:03.1:    [12] "
                    "Timeout"),
              "pcieport 0000:00:03.1:    [12] Timeout");
    EXPECT_EQ(strip("Dec  1 12:00:00 host kernel: [ 12.3] NVRM: x"), "NVRM: x");
    EXPECT_EQ(strip("2026-12-01T12:00:00.123456+00:00 host kernel: [ 12.345678] NVRM: x"),
              "NVRM: x");
    EXPECT_EQ(strip("Dec  1 12:00:00 host systemd[1]: Started x."), "Started x.");
}

// Real: NVIDIA/open-gpu-kernel-modules issue #1150 (a bare "kernel: ") and
// thesofproject/sof-test issue #744 ("kernel: " after dmesg's time).
TEST(LogLinePrefix, ABareKernelWord) {
    EXPECT_EQ(strip("kernel: NVRM: x"), "NVRM: x");
    EXPECT_EQ(strip("[    0.938401] kernel: DMAR: x"), "DMAR: x");
    EXPECT_EQ(strip("kernel: [   13.134460] AMD-Vi: x"), "AMD-Vi: x");
}

TEST(LogLinePrefix, Talosctl) {
    EXPECT_EQ(strip("172.20.0.2: kern:    info: [2026-12-01T12:00:00.123456789Z]: NVRM: x"),
              "NVRM: x");
}

TEST(LogLinePrefix, KubectlLogs) {
    EXPECT_EQ(strip("[pod/nvidia-driver-daemonset-abc/nvidia-driver-ctr] NVRM: x"), "NVRM: x");
    EXPECT_EQ(strip("2026-12-01T12:00:00.123456789Z NVRM: x"), "NVRM: x");
    EXPECT_EQ(strip("[pod/d/c] 2026-12-01T12:00:00.123456789Z [   12.345678] NVRM: x"), "NVRM: x");
    EXPECT_EQ(strip("2026-12-01T12:00:00Z pcieport 0000:00:03.0: AER: x"),
              "pcieport 0000:00:03.0: AER: x")
        << "a device and its colon are not a host and a program";
}

TEST(LogLinePrefix, PastedQuotesIndentationAndCrlf) {
    EXPECT_EQ(strip("> [   12.345678] NVRM: x"), "NVRM: x");
    EXPECT_EQ(strip(">> > Dec 01 12:00:00 host kernel: NVRM: x\r"), "NVRM: x");
    EXPECT_EQ(strip("    \t[   12.345678] NVRM: x  \r\n"), "NVRM: x");
}

TEST(LogLinePrefix, BracketsThatAreNotTimesStay) {
    EXPECT_EQ(strip("[drm] Initialized nvidia-drm 0.0.0"), "[drm] Initialized nvidia-drm 0.0.0");
    EXPECT_EQ(strip("[Firmware Bug]: TSC_DEADLINE disabled"),
              "[Firmware Bug]: TSC_DEADLINE disabled");
    EXPECT_EQ(strip("[12] Timeout"), "[12] Timeout");
    EXPECT_EQ(strip("NVRM: x"), "NVRM: x");
    EXPECT_EQ(strip("user requested kernel: nothing"), "user requested kernel: nothing");
}

// Real lines, exact text, each with its source.
TEST(LogLinePrefix, RealLinesFromPublicIssues) {
    // siderolabs/talos issue #3054 (talosctl dmesg).
    EXPECT_EQ(strip("10.1.10.21: kern:    info: [2021-01-14T16:16:01.277622804Z]: intel_pstate: "
                    "CPU model not supported"),
              "intel_pstate: CPU model not supported");
    // leptonai/gpud pull request #870 (dmesg --decode --time-format iso).
    EXPECT_EQ(strip("syslog:err   : 2025-05-27T04:18:56,089671+00:00 NVRM: Xid (PCI:0000:04:00): "
                    "79, GPU has fallen off the bus"),
              "NVRM: Xid (PCI:0000:04:00): 79, GPU has fallen off the bus");
    // leptonai/gpud pull request #46 (dmesg -T, quoted in the description).
    EXPECT_EQ(
        strip("> [Fri Aug 30 11:43:14 2024] NVRM: Xid (PCI:0000:cb:00): 109, pid=1797828, "
              "name=pt_main_thread, Ch 00000008, errorString CTX SWITCH TIMEOUT, Info 0x58005"),
        "NVRM: Xid (PCI:0000:cb:00): 109, pid=1797828, name=pt_main_thread, Ch 00000008, "
        "errorString CTX SWITCH TIMEOUT, Info 0x58005");
    // leptonai/gpud pull request #1209 (journalctl, a kernel line and another program's).
    EXPECT_EQ(strip("Feb 14 05:03:41 000-000-00000-1-gpu-1 kernel: mlx5_core 0000:ab:00.0 mlx5_5: "
                    "Port: 1 Link ACTIVE"),
              "mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE");
    EXPECT_EQ(strip("Feb 14 05:03:41 000-000-00000-1-gpu-1 systemd[1]: Started "
                    "systemd-journald.service - Journal Service."),
              "Started systemd-journald.service - Journal Service.");
    // larixer/hid-asus-dkms issue #33 (dmesg, trailing blanks as posted).
    EXPECT_EQ(strip("[  216.073947] pcieport 0000:00:1c.5:    [ 0] Receiver Error        "),
              "pcieport 0000:00:1c.5:    [ 0] Receiver Error");
}

// The same Xid in every form reads to the same event.
TEST(LogLinePrefix, EveryFormGivesTheSameEvent) {
    const auto expected = parse_kernel_log(kXid);
    ASSERT_EQ(expected.size(), 1U);
    for (const std::string_view prefix : {"[   12.345678] ",
                                          "[Tue Dec  1 12:00:00 2026] ",
                                          "[  +0.000316] ",
                                          "kern  :err   : ",
                                          "Dec 01 12:00:00 host kernel: ",
                                          "2026-12-01T12:00:00+0000 host kernel: ",
                                          "Dec  1 12:00:00 host kernel: [ 12.3] ",
                                          "172.20.0.2: kern:    info: [2026-12-01T12:00:00Z]: ",
                                          "[pod/a/b] 2026-12-01T12:00:00Z ",
                                          "> "}) {
        const auto events = parse_kernel_log(std::string(prefix) + std::string(kXid));
        ASSERT_EQ(events.size(), 1U) << prefix;
        EXPECT_EQ(events[0], expected[0]) << prefix;
    }
}

}  // namespace
}  // namespace peergate::sources::host
