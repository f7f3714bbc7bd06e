// SPDX-License-Identifier: Apache-2.0
// Properties of the kernel-log reader over every real fixture: the prefix a tool put in front
// of the messages never changes what is read, nor do CRLF line ends, and a log cut after any
// line reads as a part of the whole (never an event, device or number the whole lacks).
#include "sources/host/kernel_log_parser.hpp"
#include "sources/host/log_line_prefix.hpp"
#include "support/fixture_files.hpp"
#include "util/strings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace peergate::sources::host {
namespace {

using model::KernelEvent;

std::string joined(const std::vector<std::string>& lines,
                   std::string_view prefix,
                   std::string_view end = "\n") {
    std::string text;
    for (const auto& line : lines) {
        text.append(prefix).append(line).append(end);
    }
    return text;
}

// The messages alone, as the reader sees them once every prefix is removed.
std::vector<std::string> bare_messages(const std::string& text) {
    std::vector<std::string> bare;
    for (const auto& line : test::lines_of(text)) {
        bare.emplace_back(strip_log_line_prefix(line));
    }
    return bare;
}

}  // namespace
}  // namespace peergate::sources::host

namespace peergate::model {
// Failure messages show the event's line, not 224 bytes of hex.
void PrintTo(const KernelEvent& event, std::ostream* os) {
    *os << "{" << event.line << " x" << event.count << "}";
}
}  // namespace peergate::model

namespace peergate::sources::host {
namespace {

class KernelLogMutation : public testing::TestWithParam<std::string> {
protected:
    std::string text_ = test::read_fixture("dmesg", GetParam());
};

TEST_P(KernelLogMutation, EveryToolsPrefixReadsTheSameEvents) {
    const auto bare = bare_messages(text_);
    const auto expected = parse_kernel_log(joined(bare, ""));
    EXPECT_EQ(parse_kernel_log(text_), expected) << "the fixture's own prefix";
    for (const std::string_view prefix : {"[   12.345678] ",
                                          "[Tue Dec  1 12:00:00 2026] ",
                                          "[  +0.000316] ",
                                          "[  123.456789 <    0.000316>] ",
                                          "kern  :err   : ",
                                          "kern  :warn  : [   12.345678] ",
                                          "Dec 01 12:00:00 host kernel: ",
                                          "Dec 01 12:00:00.123456 host kernel: ",
                                          "2026-12-01T12:00:00+0000 host kernel: ",
                                          "[   12.345678] host kernel: ",
                                          "kwi 15 07:56:59 testowy kernel: ",
                                          "Dec  1 12:00:00 host kernel: [ 12.3] ",
                                          "172.20.0.2: kern:    info: [2026-12-01T12:00:00Z]: ",
                                          "[pod/a/b] 2026-12-01T12:00:00Z ",
                                          "2026-12-01T12:00:00.123456789Z ",
                                          "> ",
                                          "    "}) {
        EXPECT_EQ(parse_kernel_log(joined(bare, prefix)), expected) << "prefix '" << prefix << "'";
    }
}

TEST_P(KernelLogMutation, CrlfLineEndsReadTheSame) {
    EXPECT_EQ(parse_kernel_log(joined(test::lines_of(text_), "", "\r\n")), parse_kernel_log(text_));
}

// The key a group is counted under: the same kind, device and number exist in the whole.
bool same_key(const KernelEvent& a, const KernelEvent& b) {
    const auto number = [](const KernelEvent& e) {
        return e.sxid ? std::optional(e.sxid->number) : e.xid;
    };
    const auto severity = [](const KernelEvent& e) {
        return e.aer ? std::optional(e.aer->severity) : std::nullopt;
    };
    return a.kind == b.kind && a.device == b.device && number(a) == number(b) &&
           severity(a) == severity(b);
}

TEST_P(KernelLogMutation, ALogCutAfterAnyLineReadsAsAPartOfTheWhole) {
    const auto lines = test::lines_of(text_);
    const auto whole = parse_kernel_log(text_);
    for (std::size_t keep = 0; keep <= lines.size(); ++keep) {
        SCOPED_TRACE("first " + std::to_string(keep) + " lines");
        const std::vector<std::string> head(lines.begin(),
                                            lines.begin() + static_cast<std::ptrdiff_t>(keep));
        const auto events = parse_kernel_log(joined(head, ""));
        for (const auto& event : events) {
            const auto match = std::find_if(
                whole.begin(), whole.end(), [&](const auto& w) { return same_key(event, w); });
            // The one documented exception: an AER "received" line cut from its report is a
            // report of the device it names (docs/driver-facts.md, "PCIe AER in the kernel log").
            if (match == whole.end() && &event == &events.back() &&
                head.back().find(" received") != std::string::npos) {
                continue;
            }
            ASSERT_NE(match, whole.end()) << "an event the whole log lacks: " << event.line;
            EXPECT_LE(event.count, match->count) << event.line;
            EXPECT_LE(event.suppressed, match->suppressed) << event.line;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(EveryFile,
                         KernelLogMutation,
                         testing::ValuesIn(test::fixture_names("dmesg", ".txt")),
                         [](const auto& param_info) {
                             return test::fixture_test_name(param_info.param, param_info.index);
                         });

}  // namespace
}  // namespace peergate::sources::host
