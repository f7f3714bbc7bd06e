// SPDX-License-Identifier: Apache-2.0
#include "snapshot/machine_nvlink_errors.hpp"

#include "snapshot/machine_json.hpp"

#include <fmt/format.h>

#include <set>

namespace peergate::snapshot {

namespace {

using machine_json::invalid;
using Json = nlohmann::json;

util::Expected<std::uint64_t> count_at(const Json& j, const std::string& where) {
    if (!j.is_number_unsigned()) {
        return invalid(where + ": expected a non-negative integer, got " + j.dump());
    }
    return j.get<std::uint64_t>();
}

util::Expected<MachineNvlinkErrors> parse_entry(const Json& j, const std::string& at) {
    if (!j.is_object() || !j.contains("link") || !j["link"].is_number_integer() ||
        j["link"].get<long long>() < 0 || j["link"].get<long long>() > 63) {
        return invalid(at + ".link: an NVLink index from 0 to 63 is required");
    }
    MachineNvlinkErrors entry{.link = j["link"].get<int>()};
    const Json growth = j.value("growth", Json::object());
    if (!growth.is_object()) {
        return invalid(at + ".growth: expected an object of counts");
    }
    for (std::size_t k = 0; k < model::kNvlinkCounters; ++k) {
        const std::string name(model::kNvlinkCounterNames[k]);
        if (j.contains(name)) {
            auto value = count_at(j[name], at + "." + name);
            if (!value) {
                return util::unexpected(value.error());
            }
            entry.counts.value[k] = *value;
        }
        if (growth.contains(name)) {
            auto value = count_at(growth[name], at + ".growth." + name);
            if (!value) {
                return util::unexpected(value.error());
            }
            entry.growth[k] = *value;
        }
    }
    return entry;
}

}  // namespace

util::Expected<std::vector<MachineNvlinkErrors>> parse_nvlink_errors(const Json& gpu,
                                                                     const std::string& where) {
    std::vector<MachineNvlinkErrors> links;
    if (!gpu.contains("nvlink_errors")) {
        return links;
    }
    if (!gpu["nvlink_errors"].is_array()) {
        return invalid(where + ".nvlink_errors: expected an array");
    }
    std::set<int> seen;
    for (std::size_t k = 0; k < gpu["nvlink_errors"].size(); ++k) {
        const std::string at = fmt::format("{}.nvlink_errors[{}]", where, k);
        auto entry = parse_entry(gpu["nvlink_errors"][k], at);
        if (!entry) {
            return util::unexpected(entry.error());
        }
        if (!seen.insert(entry->link).second) {
            return invalid(fmt::format("{}: link {} is listed twice", at, entry->link));
        }
        links.push_back(*entry);
    }
    return links;
}

util::Expected<model::NvlinkCounterSet> parse_nvlink_counter_set(const Json& gpu,
                                                                 const std::string& where) {
    const Json set = gpu.value("nvlink_counters", Json("dl"));
    if (set == "dl") {
        return model::NvlinkCounterSet::dl;
    }
    if (set == "nvlink5") {
        return model::NvlinkCounterSet::nvlink5;
    }
    return invalid(where + ".nvlink_counters: expected \"dl\" or \"nvlink5\", got " + set.dump());
}

const char* to_string(model::NvlinkCounterSet set) {
    return set == model::NvlinkCounterSet::nvlink5 ? "nvlink5" : "dl";
}

nlohmann::ordered_json nvlink_errors_to_json(const std::vector<MachineNvlinkErrors>& links) {
    auto out = nlohmann::ordered_json::array();
    for (const auto& entry : links) {
        nlohmann::ordered_json j{{"link", entry.link}};
        nlohmann::ordered_json growth = nlohmann::ordered_json::object();
        for (std::size_t k = 0; k < model::kNvlinkCounters; ++k) {
            const std::string name(model::kNvlinkCounterNames[k]);
            if (entry.counts.value[k]) {
                j[name] = *entry.counts.value[k];
            }
            if (entry.growth[k] != 0) {
                growth[name] = entry.growth[k];
            }
        }
        if (!growth.empty()) {
            j["growth"] = growth;
        }
        out.push_back(j);
    }
    return out;
}

}  // namespace peergate::snapshot
