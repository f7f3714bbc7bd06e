// SPDX-License-Identifier: Apache-2.0
#include "snapshot/machine_limits.hpp"

#include "util/cpu_list.hpp"

#include <fmt/format.h>

#include <string>

namespace peergate::snapshot {

namespace {

using Json = nlohmann::json;

util::Unexpected too_large(const std::string& where, const std::string& what) {
    return util::unexpected(util::ErrorCode::invalid_input,
                            fmt::format("machine file: {}: {}", where, what));
}

util::Expected<void> check_count(const Json& j,
                                 const char* key,
                                 std::size_t most,
                                 const std::string& where) {
    if (j.contains(key) && j[key].is_array() && j[key].size() > most) {
        return too_large(
            where + key,
            fmt::format("{} entries, more than the {} peergate reads", j[key].size(), most));
    }
    return {};
}

// Every string but the kernel log (bounded by the file's own limit) is a name or an id.
util::Expected<void> check_strings(const Json& j, const std::string& where) {
    if (j.is_string() && j.get_ref<const std::string&>().size() > kLongestString) {
        return too_large(where,
                         fmt::format("a string of {} bytes, longer than {}",
                                     j.get_ref<const std::string&>().size(),
                                     kLongestString));
    }
    if (j.is_object()) {
        for (const auto& [key, value] : j.items()) {
            if (where == "host" && key == "kernel_log") {
                continue;
            }
            PEERGATE_TRY(check_strings(value, where.empty() ? key : where + "." + key));
        }
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i) {
            PEERGATE_TRY(check_strings(j[i], fmt::format("{}[{}]", where, i)));
        }
    }
    return {};
}

// A GPU's CPU affinity names CPUs a Linux host can have (each one is expanded).
util::Expected<void> check_affinity(const Json& gpu, const std::string& where) {
    if (!gpu.contains("cpu_affinity") || !gpu["cpu_affinity"].is_string()) {
        return {};
    }
    const auto ranges = util::parse_cpu_ranges(gpu["cpu_affinity"].get<std::string>());
    for (const auto& [low, high] : ranges.value_or(std::vector<std::pair<int, int>>{})) {
        if (high > kLargestCpu || low > kLargestCpu) {
            return too_large(where + "cpu_affinity",
                             fmt::format("CPU {} is past the largest a host has ({})",
                                         std::max(low, high),
                                         kLargestCpu));
        }
    }
    return {};
}

}  // namespace

util::Expected<void> check_limits(const Json& doc) {
    PEERGATE_TRY(check_count(doc, "gpus", kMostGpus, ""));
    PEERGATE_TRY(check_count(doc, "nics", kMostNics, ""));
    PEERGATE_TRY(check_count(doc, "faults", kMostFaults, ""));
    for (std::size_t k = 0; doc.contains("gpus") && k < doc["gpus"].size(); ++k) {
        const std::string where = fmt::format("gpus[{}].", k);
        PEERGATE_TRY(check_count(doc["gpus"][k], "nvlinks", kMostNvlinksPerGpu, where));
        PEERGATE_TRY(check_affinity(doc["gpus"][k], where));
    }
    if (doc.contains("host") && doc["host"].contains("cpus")) {
        for (const auto& row : doc["host"]["cpus"]) {
            if (!row.empty() && row[0].get<long long>() > kLargestCpu) {
                return too_large("host.cpus",
                                 fmt::format("CPU {} is past the largest a host has ({})",
                                             row[0].get<long long>(),
                                             kLargestCpu));
            }
        }
    }
    return check_strings(doc, "");
}

}  // namespace peergate::snapshot
