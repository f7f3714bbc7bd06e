// SPDX-License-Identifier: Apache-2.0
#include "cli/bench_file.hpp"

#include "util/atomic_file.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace peergate::cli {

namespace {

using Json = nlohmann::json;

util::Unexpected fail(std::string message) {
    return util::unexpected(util::ErrorCode::invalid_input, std::move(message));
}

const Json* gbps_of(const Json& entry) {
    for (const char* key : {"p2p_gbps", "gbps", "bandwidth_gbps"}) {
        if (entry.contains(key)) {
            return &entry[key];
        }
    }
    return nullptr;
}

// A GPU index as nvidia-smi numbers them: an integer from 0 (nullopt otherwise).
std::optional<int> gpu_index(const Json& entry, const char* key) {
    if (!entry.contains(key) || !entry[key].is_number_integer()) {
        return std::nullopt;
    }
    const auto value = entry[key].get<std::int64_t>();
    if (value < 0 || value > std::numeric_limits<int>::max()) {
        return std::nullopt;
    }
    return static_cast<int>(value);
}

// A rate the placement may weigh with: a finite number from 0.
bool usable_rate(const Json& value) {
    return value.is_number() && std::isfinite(value.get<double>()) && value.get<double>() >= 0.0;
}

// One entry's sample; nullopt when the pair was not measured (no rate, or null).
util::Expected<std::optional<policy::BandwidthSample>> sample_of(const Json& entry) {
    const auto src = entry.is_object() ? gpu_index(entry, "src") : std::nullopt;
    const auto dst = entry.is_object() ? gpu_index(entry, "dst") : std::nullopt;
    if (!src || !dst || *src == *dst) {
        return fail(
            "peergate.bench/v1: an entry's \"src\" and \"dst\" must be two different GPU "
            "indices (integers from 0)");
    }
    const Json* gbps = gbps_of(entry);
    if (gbps == nullptr || gbps->is_null()) {
        return std::optional<policy::BandwidthSample>();
    }
    if (!usable_rate(*gbps)) {
        return fail("peergate.bench/v1: a GB/s value is not a finite number from 0");
    }
    policy::BandwidthSample sample{.src = *src, .dst = *dst, .gbps = gbps->get<double>()};
    if (entry.contains("staged_gbps") && !entry["staged_gbps"].is_null()) {
        if (!usable_rate(entry["staged_gbps"])) {
            return fail("peergate.bench/v1: a \"staged_gbps\" value is not a finite number from 0");
        }
        sample.staged_gbps = entry["staged_gbps"].get<double>();
    }
    return std::optional(sample);
}

util::Expected<std::vector<policy::BandwidthSample>> samples_of(const Json& list) {
    std::vector<policy::BandwidthSample> samples;
    for (const auto& entry : list) {
        auto sample = sample_of(entry);
        if (!sample) {
            return util::unexpected(sample.error());
        }
        if (*sample) {
            samples.push_back(**sample);
        }
    }
    return samples;
}

}  // namespace

util::Expected<std::vector<policy::BandwidthSample>> parse_bench_samples(std::string_view text) {
    const Json doc = Json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return fail("not a JSON object");
    }
    const auto schema = doc.find("schema");
    if (schema == doc.end() || !schema->is_string() ||
        schema->get<std::string>() != "peergate.bench/v1") {
        return fail("\"schema\" is not \"peergate.bench/v1\"");
    }
    const char* key = doc.contains("pairs") ? "pairs" : "cells";
    if (!doc.contains(key) || !doc[key].is_array()) {
        return fail("no \"pairs\" or \"cells\" array");
    }
    auto samples = samples_of(doc[key]);
    if (samples && samples->empty()) {
        return fail("no measured pair");
    }
    return samples;
}

util::Expected<std::vector<policy::BandwidthSample>> read_bench_samples(const std::string& path) {
    auto text = util::read_file(path);
    if (!text) {
        return util::unexpected(text.error());
    }
    auto samples = parse_bench_samples(*text);
    if (!samples) {
        return fail(path + ": " + samples.error().message);
    }
    return samples;
}

}  // namespace peergate::cli
