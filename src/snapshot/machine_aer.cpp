// SPDX-License-Identifier: Apache-2.0
#include "snapshot/machine_aer.hpp"

#include "snapshot/machine_json.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>

namespace peergate::snapshot {

namespace {

using machine_json::invalid;
using Json = nlohmann::json;

struct File {
    const char* key;
    std::optional<model::AerCounters> model::PciAer::*counters;
};

constexpr std::array<File, 3> kFiles{{{"correctable", &model::PciAer::correctable},
                                      {"nonfatal", &model::PciAer::nonfatal},
                                      {"fatal", &model::PciAer::fatal}}};

util::Expected<model::AerCounters> parse_counters(const Json& j, const std::string& at) {
    if (!j.is_object()) {
        return invalid(at + ": expected an object of error names and counts");
    }
    model::AerCounters out;
    for (const auto& [name, count] : j.items()) {
        if (!count.is_number_unsigned() || name.empty()) {
            return invalid(at + "." + name + ": expected a non-negative integer, got " +
                           count.dump());
        }
        if (name.starts_with("TOTAL_ERR_")) {
            out.total = count.get<std::uint64_t>();
        } else {
            out.counts.emplace_back(name, count.get<std::uint64_t>());
        }
    }
    return out;
}

}  // namespace

util::Expected<std::optional<model::PciAer>> parse_aer(const Json& owner,
                                                       const std::string& where) {
    if (!owner.contains("aer")) {
        return std::optional<model::PciAer>();
    }
    const Json& aer = owner["aer"];
    if (!aer.is_object()) {
        return invalid(where + ".aer: expected an object");
    }
    model::PciAer out;
    for (const auto& file : kFiles) {
        if (aer.contains(file.key)) {
            auto counters = parse_counters(aer[file.key], where + ".aer." + file.key);
            if (!counters) {
                return util::unexpected(counters.error());
            }
            out.*file.counters = std::move(*counters);
        }
    }
    return std::optional<model::PciAer>(std::move(out));
}

nlohmann::ordered_json aer_to_json(const model::PciAer& aer) {
    nlohmann::ordered_json out = nlohmann::ordered_json::object();
    constexpr std::array<const char*, 3> kTotals{
        "TOTAL_ERR_COR", "TOTAL_ERR_NONFATAL", "TOTAL_ERR_FATAL"};
    for (std::size_t k = 0; k < kFiles.size(); ++k) {
        if (const auto& counters = aer.*kFiles[k].counters) {
            nlohmann::ordered_json file = nlohmann::ordered_json::object();
            for (const auto& [name, count] : counters->counts) {
                file[name] = count;
            }
            if (counters->total) {
                file[kTotals[k]] = *counters->total;
            }
            out[kFiles[k].key] = file;
        }
    }
    return out;
}

std::string aer_file_text(const model::AerCounters& counters, std::string_view total_name) {
    std::string text;
    for (const auto& [name, count] : counters.counts) {
        text += fmt::format("{} {}\n", name, count);
    }
    return text + fmt::format("{} {}\n", total_name, counters.sum());
}

model::PciAer canonical_aer(model::PciAer aer) {
    for (const auto& file : kFiles) {
        if (auto& counters = aer.*file.counters) {
            std::erase_if(counters->counts, [](const auto& entry) { return entry.second == 0; });
            std::sort(counters->counts.begin(), counters->counts.end());
        }
    }
    return aer;
}

}  // namespace peergate::snapshot
