// SPDX-License-Identifier: Apache-2.0
#include "sources/documents/bench_file.hpp"

#include "util/atomic_file.hpp"
#include "util/bounded_read.hpp"
#include "util/json_read.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <utility>

namespace peergate::sources::documents {

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
    const auto value = entry.contains(key) ? util::json_integer<int>(entry[key]) : std::nullopt;
    return value && *value >= 0 ? value : std::nullopt;
}

// A rate the placement may weigh with: a finite number from 0.
bool usable_rate(const Json& value) {
    const auto rate = util::json_finite(value);
    return rate && *rate >= 0.0;
}

// An entry's further rate `key` (staged_gbps, bidirectional_gbps): nullopt when absent or
// null, an error when it is not a finite number from 0.
util::Expected<std::optional<double>> optional_rate(const Json& entry, const char* key) {
    if (!entry.contains(key) || entry[key].is_null()) {
        return std::optional<double>();
    }
    if (!usable_rate(entry[key])) {
        return fail(
            fmt::format("peergate.bench/v1: a \"{}\" value is not a finite number from 0", key));
    }
    return std::optional(entry[key].get<double>());
}

// One entry's sample; nullopt when the pair was not measured (no rate, or null).
util::Expected<std::optional<model::BandwidthSample>> sample_of(const Json& entry) {
    const auto src = entry.is_object() ? gpu_index(entry, "src") : std::nullopt;
    const auto dst = entry.is_object() ? gpu_index(entry, "dst") : std::nullopt;
    if (!src || !dst || *src == *dst) {
        return fail(
            "peergate.bench/v1: an entry's \"src\" and \"dst\" must be two different GPU "
            "indices (integers from 0)");
    }
    const Json* gbps = gbps_of(entry);
    if (gbps == nullptr || gbps->is_null()) {
        return std::optional<model::BandwidthSample>();
    }
    if (!usable_rate(*gbps)) {
        return fail("peergate.bench/v1: a GB/s value is not a finite number from 0");
    }
    model::BandwidthSample sample{.src = *src, .dst = *dst, .gbps = gbps->get<double>()};
    for (const auto& [key, rate] : {std::pair{"staged_gbps", &sample.staged_gbps},
                                    std::pair{"bidirectional_gbps", &sample.bidirectional_gbps}}) {
        auto read = optional_rate(entry, key);
        if (!read) {
            return util::unexpected(read.error());
        }
        *rate = *read;
    }
    return std::optional(sample);
}

util::Expected<std::vector<model::BandwidthSample>> samples_of(const Json& list) {
    std::vector<model::BandwidthSample> samples;
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

// "gpus" and "gpu_uuids" side by side, as bench writes them; entries of another type are
// left out (the UUIDs only ever refuse a file, so what cannot be read refuses nothing).
std::vector<std::pair<int, std::string>> uuids_of(const Json& doc) {
    std::vector<std::pair<int, std::string>> uuids;
    const auto gpus = doc.find("gpus");
    const auto ids = doc.find("gpu_uuids");
    if (gpus == doc.end() || ids == doc.end() || !gpus->is_array() || !ids->is_array()) {
        return uuids;
    }
    for (std::size_t i = 0; i < std::min(gpus->size(), ids->size()); ++i) {
        const auto index = util::json_integer<int>((*gpus)[i]);
        if (index && (*ids)[i].is_string() && !(*ids)[i].get_ref<const std::string&>().empty()) {
            uuids.emplace_back(*index, (*ids)[i].get<std::string>());
        }
    }
    return uuids;
}

std::string measured_on(const BenchFile& file) {
    return file.host.empty() ? std::string("another machine") : "host " + file.host;
}

}  // namespace

util::Expected<BenchFile> parse_bench_file(std::string_view text) {
    const Json doc = Json::parse(text, nullptr, false);
    if (doc.is_discarded() || !doc.is_object()) {
        return fail("not a JSON object");
    }
    if (!util::json_string_is(doc, "schema", "peergate.bench/v1")) {
        return fail("\"schema\" is not \"peergate.bench/v1\"");
    }
    const char* key = doc.contains("pairs") ? "pairs" : "cells";
    if (!doc.contains(key) || !doc[key].is_array()) {
        return fail("no \"pairs\" or \"cells\" array");
    }
    auto samples = samples_of(doc[key]);
    if (!samples) {
        return util::unexpected(samples.error());
    }
    // No pair is a result too: bench on a one-GPU node measures only the device (docs/export.md,
    // --bandwidth); whoever needs a pair says which one is missing.
    const auto host = doc.find("host");
    return BenchFile{
        .samples = std::move(*samples),
        .gpu_uuids = uuids_of(doc),
        .host = host != doc.end() && host->is_string() ? host->get<std::string>() : std::string()};
}

util::Expected<BenchFile> read_bench_file(const std::string& path) {
    constexpr std::size_t kLargestBenchFile = std::size_t{16} << 20U;  // 64 GPUs: ~1 MB
    auto text = util::read_regular_file(path, kLargestBenchFile);
    if (!text) {
        return util::unexpected(text.error());
    }
    auto file = parse_bench_file(*text);
    if (!file) {
        return fail(path + ": " + file.error().message);
    }
    return file;
}

util::Expected<void> check_bench_matches(const BenchFile& file,
                                         const std::string& path,
                                         const std::vector<model::Gpu>& here) {
    for (const auto& [index, uuid] : file.gpu_uuids) {
        const model::Gpu* gpu = model::find_gpu(here, index);
        if (gpu != nullptr && !gpu->uuid.empty() && gpu->uuid != uuid) {
            return fail(fmt::format(
                "{} was measured on other GPUs ({}): GPU {} there is {}, here it is {}; "
                "measure this machine with peergate bench --json",
                path,
                measured_on(file),
                index,
                uuid,
                gpu->uuid));
        }
    }
    for (const auto& sample : file.samples) {
        for (const int index : {sample.src, sample.dst}) {
            if (model::find_gpu(here, index) == nullptr) {
                return fail(fmt::format(
                    "{} has a rate for GPU {}, which this machine does not have; it was measured "
                    "on {}",
                    path,
                    index,
                    measured_on(file)));
            }
        }
    }
    return {};
}

}  // namespace peergate::sources::documents
