// SPDX-License-Identifier: Apache-2.0
#include "sources/host/sxid_log.hpp"

#include "sources/host/pcie_aer_log.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <string>

namespace peergate::sources::host {

namespace {

constexpr std::string_view kOpening = "SXid (PCI:";

// "Link 48 LTSSM Fault Up" -> 48 and "LTSSM Fault Up"; text without a link is all words.
void read_link_and_words(std::string_view text, model::SxidReport& report) {
    if (text.starts_with("Link ")) {
        const auto rest = text.substr(5);
        const auto space = rest.find(' ');
        if (const auto link = util::parse_int<int>(rest.substr(0, space))) {
            report.links.push_back(*link);
            text = space == std::string_view::npos ? std::string_view() : rest.substr(space + 1);
        }
    }
    report.description = std::string(util::trim(text).substr(0, 200));
}

// What follows "NNNNN, ": the error's own line, or one of the lines that elaborate it.
bool read_body(std::string_view body, model::SxidReport& report) {
    for (const auto& [word, fatal] : {std::pair{std::string_view("Fatal,"), true},
                                      std::pair{std::string_view("Non-fatal,"), false}}) {
        if (body.starts_with(word)) {
            report.fatal = fatal;
            read_link_and_words(util::trim(body.substr(word.size())), report);
            return true;
        }
    }
    return false;
}

}  // namespace

std::optional<model::KernelEvent> read_sxid_line(std::string_view line) {
    const auto start = line.find(kOpening);
    if (start == std::string_view::npos) {
        return std::nullopt;
    }
    const auto close = line.find("): ", start);
    if (close == std::string_view::npos) {
        return std::nullopt;
    }
    const auto device =
        parse_log_pci_address(line.substr(start + 5, close - start - 5));  // from "PCI:"
    const auto after = line.substr(close + 3);
    const auto comma = after.find(',');
    const auto number = util::parse_int<int>(util::trim(after.substr(0, comma)));
    if (!number || !device) {
        return std::nullopt;
    }
    model::SxidReport report{.number = *number};
    const bool error_line =
        comma != std::string_view::npos && read_body(util::trim(after.substr(comma + 1)), report);
    return model::KernelEvent{.kind = model::KernelEventKind::sxid,
                              .device = *device,
                              .count = error_line ? 1 : 0,
                              .sxid = std::move(report)};
}

void merge_sxid(model::SxidReport& into, const model::SxidReport& from) {
    if (from.fatal && (!into.fatal || *from.fatal)) {
        into.fatal = from.fatal;
    }
    for (int link : from.links) {
        if (into.links.size() < 64 &&
            std::find(into.links.begin(), into.links.end(), link) == into.links.end()) {
            into.links.push_back(link);
        }
    }
    if (into.description.empty()) {
        into.description = from.description;
    }
}

}  // namespace peergate::sources::host
