// SPDX-License-Identifier: Apache-2.0
// Every real kernel-log fixture, with what tests/fixtures/dmesg/README.md says a correct
// reader concludes: each event group's kind, device, number, count and details, in order.
#include "sources/host/kernel_log_parser.hpp"
#include "support/fixture_files.hpp"

#include <gtest/gtest.h>

#include <cctype>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace peergate::sources::host {
namespace {

using model::AerSeverity;
using model::KernelEventKind;

struct EventTruth {
    KernelEventKind kind;
    std::string device;  // "" where the line names none
    int count = 1;
    std::optional<int> number;  // the Xid or SXid
    int suppressed = 0;
    // pcie_aer: severity, bits, reporting port ("" where no "received" line named one)
    std::optional<AerSeverity> aer;
    std::vector<std::string> errors;
    std::string port;
    // sxid: fatal or not, and the links named
    std::optional<bool> fatal;
    std::vector<int> links;
};

struct LogTruth {
    std::string file;
    std::vector<EventTruth> events;
};

void PrintTo(const LogTruth& truth, std::ostream* os) {
    *os << truth.file;
}

constexpr auto kXid = KernelEventKind::xid;
constexpr auto kFallen = KernelEventKind::fallen_off_bus;
constexpr auto kDmar = KernelEventKind::dmar_fault;
constexpr auto kAmdVi = KernelEventKind::amd_vi_fault;
constexpr auto kAer = KernelEventKind::pcie_aer;
constexpr auto kSxid = KernelEventKind::sxid;
constexpr auto kCorrected = AerSeverity::corrected;
constexpr auto kFatal = AerSeverity::uncorrected_fatal;

EventTruth xid(const char* device, int number, int count) {
    return {.kind = kXid, .device = device, .count = count, .number = number};
}

EventTruth aer(const char* device,
               int count,
               AerSeverity severity,
               std::vector<std::string> errors,
               const char* port) {
    return {.kind = kAer,
            .device = device,
            .count = count,
            .aer = severity,
            .errors = std::move(errors),
            .port = port};
}

EventTruth sxid(const char* device, int number, bool fatal, std::vector<int> links) {
    const int count = static_cast<int>(links.size());
    return {.kind = kSxid,
            .device = device,
            .count = count,
            .number = number,
            .fatal = fatal,
            .links = std::move(links)};
}

// The README's readings, file by file.
std::vector<LogTruth> kernel_log_truths() {
    return {
        {"akash-support-244_xid43_31_94_dmesg_ctime.txt",
         {xid("0000:00:05.0", 43, 2), xid("0000:00:07.0", 31, 1), xid("0000:00:08.0", 94, 1)}},
        {"apu2-documentation-240_amdvi_split_line_old_form.txt",
         {{.kind = kAmdVi, .device = "0000:05:00.0", .count = 5}}},
        {"bumblebee-554_gpu_at_fallen_off.txt",
         {{.kind = kFallen, .device = "0000:01:00.0", .count = 2}}},
        {"cuda-samples-48_amdvi_io_page_fault.txt",
         {{.kind = kAmdVi, .device = "0000:07:00.0", .count = 9}}},
        {"gpud-readme_xid13_31_109_dmesg_ctime.txt",
         {xid("0000:cb:00.0", 13, 3), xid("0000:cb:00.0", 109, 2), xid("0000:cb:00.0", 31, 1)}},
        {"gpud-readme_xid79_sxid20034_fatal_ltssm.txt",
         {xid("0000:91:00.0", 79, 1),
          {.kind = kFallen, .device = "0000:91:00.0"},
          sxid("0000:06:00.0", 20034, true, {48}),
          sxid("0000:05:00.0", 20034, true, {63, 62}),
          sxid("0000:07:00.0", 20034, true, {37})}},
        {"gpud-testdata_xid119_gsp_timeout_dmesg_ctime.txt", {xid("0000:9b:00.0", 119, 5)}},
        {"llama.cpp-21908_amdvi_io_page_fault.txt",
         {{.kind = kAmdVi, .device = "0000:81:00.0", .count = 8, .suppressed = 6}}},
        {"ml-engineering-nvdebug_xid63_row_remapper.txt", {xid("0000:10:1c.0", 63, 1)}},
        {"nbfc-181_aer_localised_journal.txt",
         {aer("0000:00:1c.5", 1, kCorrected, {"Receiver Error"}, "0000:00:1c.5")}},
        {"nvsentinel-155_fallen_off_bus.txt",
         {{.kind = kFallen, .device = "0000:b3:00.0"}, xid("0000:44:00.0", 79, 1)}},
        {"nvtrust-124_sxid22013_nvswitch_dmesg.txt",
         {sxid("0000:04:00.0", 22013, false, {44, 45, 46})}},
        {"onl-897_dmar_pte_write_not_set.txt",
         {{.kind = kDmar, .device = "0000:00:12.0", .count = 3, .suppressed = 2474}}},
        {"open-gpu-kernel-modules-1045_xid38_109_journal_polish_month.txt",
         {xid("0000:07:00.0", 38, 1), xid("0000:07:00.0", 109, 5)}},
        {"open-gpu-kernel-modules-1045_xid62_154_dmesg_ctime.txt",
         {xid("0000:3e:00.0", 62, 1), xid("0000:3e:00.0", 154, 1)}},
        {"open-gpu-kernel-modules-1150_xid45_after_xid149_145.txt",
         {xid("0000:dc:00.0", 45, 2),
          xid("0000:ed:00.0", 45, 2),
          xid("0000:ba:00.0", 45, 2),
          xid("0000:97:00.0", 45, 1)}},
        {"open-gpu-kernel-modules-446_talosctl_prefix_no_event.txt", {}},
        {"open-gpu-kernel-modules-829_xid120_gsp_exception_journal.txt",
         {xid("0000:02:00.0", 120, 1)}},
        {"pop-os-3363_aer_correctable_syslog.txt",
         {aer("0000:00:03.1", 2, kCorrected, {"Timeout", "BadTLP"}, "0000:00:03.1")}},
        {"pop-os-751_aer_port_and_device.txt",
         {aer("0000:00:1d.0", 2, kCorrected, {"RxErr"}, ""),
          aer("0000:03:00.0", 1, kCorrected, {"RxErr"}, "0000:00:1d.0")}},
        {"raspberry-pi-pcie-64_aer_old_id_form.txt",
         {aer("0000:00:1d.0", 3, kCorrected, {"Receiver Error"}, "")}},
        {"relion-436_xid13_syslog_with_dmesg_time.txt", {xid("0000:41:00.0", 13, 8)}},
        {"returnn-1500_aer_fatal_cmplto_nvidia_reltime.txt",
         {aer("0000:00:03.0", 1, kFatal, {"SDES", "CmpltTO"}, "0000:00:03.0")}},
        {"sof-test-744_dmar_no_pasid_0x_bus_spelling.txt",
         {{.kind = kDmar, .device = "0000:00:02.0", .count = 2}}},
        {"tt-umd-1814_dmar_no_pasid_sm_first_level.txt",
         {{.kind = kDmar, .device = "0000:03:00.0"}}},
        {"vgpu-unlock-114_aer_fatal_sdes.txt",  // the bit line before the report is no one's
         {aer("0000:00:01.1", 1, kFatal, {}, "")}},
    };
}

std::optional<model::PciAddress> address(const std::string& text) {
    if (text.empty()) {
        return std::nullopt;
    }
    return model::PciAddress::parse(text).value();
}

void expect_event(const model::KernelEvent& e, const EventTruth& t) {
    EXPECT_EQ(e.kind, t.kind);
    EXPECT_EQ(e.device, address(t.device));
    EXPECT_EQ(e.count, t.count);
    EXPECT_EQ(e.suppressed, t.suppressed);
    EXPECT_EQ(e.kind == kXid ? e.xid : std::nullopt, t.kind == kXid ? t.number : std::nullopt);
    EXPECT_EQ(e.kind != kXid, !e.xid.has_value()) << "only an Xid event has an Xid";
    EXPECT_EQ(e.aer.has_value(), t.aer.has_value());
    if (e.aer && t.aer) {
        EXPECT_EQ(e.aer->severity, *t.aer);
        EXPECT_EQ(e.aer->errors, t.errors);
        EXPECT_EQ(e.aer->port, address(t.port));
    }
    EXPECT_EQ(e.sxid.has_value(), t.kind == kSxid);
    if (e.sxid) {
        EXPECT_EQ(e.sxid->number, t.number);
        EXPECT_EQ(e.sxid->fatal, t.fatal);
        EXPECT_EQ(e.sxid->links, t.links);
    }
}

class KernelLogFixtures : public testing::TestWithParam<LogTruth> {};

TEST_P(KernelLogFixtures, ReadsEveryEventGroupTheReadmeNames) {
    const auto& truth = GetParam();
    const auto events = parse_kernel_log(test::read_fixture("dmesg", truth.file));
    ASSERT_EQ(events.size(), truth.events.size());
    for (std::size_t k = 0; k < events.size(); ++k) {
        SCOPED_TRACE("event " + std::to_string(k) + ": " + events[k].line);
        expect_event(events[k], truth.events[k]);
    }
}

INSTANTIATE_TEST_SUITE_P(EveryFile,
                         KernelLogFixtures,
                         testing::ValuesIn(kernel_log_truths()),
                         [](const auto& param_info) {
                             return test::fixture_test_name(param_info.param.file,
                                                            param_info.index);
                         });

TEST(KernelLogFixturesTable, EveryFileInTheFixtureFolderHasATruthEntry) {
    std::set<std::string> covered;
    for (const auto& truth : kernel_log_truths()) {
        covered.insert(truth.file);
    }
    for (const auto& name : test::fixture_names("dmesg")) {
        if (name != "README.md") {
            EXPECT_EQ(covered.count(name), 1U) << name << " has no entry in this table";
        }
    }
}

}  // namespace
}  // namespace peergate::sources::host
