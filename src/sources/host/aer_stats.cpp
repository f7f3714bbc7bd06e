// SPDX-License-Identifier: Apache-2.0
#include "sources/host/aer_stats.hpp"

#include "util/strings.hpp"

#include <string>

namespace peergate::sources::host {

model::AerCounters parse_aer_counters(std::string_view text) {
    model::AerCounters out;
    for (const auto raw : util::split(text, '\n')) {
        const auto line = util::trim(raw);
        const auto space = line.find_last_of(" \t");
        if (space == std::string_view::npos) {
            continue;
        }
        const auto name = util::trim(line.substr(0, space));
        const auto count = util::parse_int<std::uint64_t>(line.substr(space + 1));
        if (!count || name.empty()) {
            continue;
        }
        if (name.starts_with("TOTAL_ERR_")) {
            out.total = *count;
        } else {
            out.counts.emplace_back(std::string(name), *count);
        }
    }
    return out;
}

std::optional<model::PciAer> read_aer(const HostRoot& root, const model::PciAddress& address) {
    const std::string dir = "/sys/bus/pci/devices/" + address.to_sysfs() + "/";
    const auto read = [&](const char* name) -> std::optional<model::AerCounters> {
        const auto text = root.read_text(dir + name);
        return text ? std::optional(parse_aer_counters(*text)) : std::nullopt;
    };
    model::PciAer aer{.correctable = read("aer_dev_correctable"),
                      .nonfatal = read("aer_dev_nonfatal"),
                      .fatal = read("aer_dev_fatal")};
    if (!aer.correctable && !aer.nonfatal && !aer.fatal) {
        return std::nullopt;
    }
    return aer;
}

}  // namespace peergate::sources::host
