// SPDX-License-Identifier: Apache-2.0
#include "cli/bench_file.hpp"

#include "util/atomic_file.hpp"

#include <nlohmann/json.hpp>

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

util::Expected<std::vector<policy::BandwidthSample>> samples_of(const Json& list) {
    std::vector<policy::BandwidthSample> samples;
    for (const auto& entry : list) {
        if (!entry.is_object() || !entry.contains("src") || !entry.contains("dst") ||
            !entry["src"].is_number_integer() || !entry["dst"].is_number_integer()) {
            return fail("peergate.bench/v1: an entry lacks integer \"src\" and \"dst\"");
        }
        const Json* gbps = gbps_of(entry);
        if (gbps == nullptr || gbps->is_null()) {
            continue;  // not measured: the pair stays without a sample
        }
        if (!gbps->is_number()) {
            return fail("peergate.bench/v1: a GB/s value is not a number");
        }
        policy::BandwidthSample sample{.src = entry["src"].get<int>(),
                                       .dst = entry["dst"].get<int>(),
                                       .gbps = gbps->get<double>()};
        if (entry.contains("staged_gbps") && entry["staged_gbps"].is_number()) {
            sample.staged_gbps = entry["staged_gbps"].get<double>();
        }
        samples.push_back(sample);
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
