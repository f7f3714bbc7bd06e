// SPDX-License-Identifier: Apache-2.0
#include "report/exports/prometheus_previous.hpp"

#include "model/nvlink_errors.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace peergate::report::exports {

namespace {

constexpr std::string_view kLastSuccess = "peergate_last_success_timestamp_seconds";
constexpr std::string_view kGpuInfo = "peergate_gpu_info";
constexpr std::string_view kLinkErrors = "peergate_gpu_nvlink_link_errors_total";

struct Sample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};

std::optional<double> number(std::string_view text) {
    double value = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) {
        return std::nullopt;
    }
    return value;
}

// One quoted label value from `text` at `pos` (just past the opening quote), unescaped as
// the text format escapes it; `pos` ends past the closing quote. nullopt when unterminated.
std::optional<std::string> quoted(std::string_view text, std::size_t& pos) {
    std::string out;
    while (pos < text.size() && text[pos] != '"') {
        char c = text[pos++];
        if (c == '\\' && pos < text.size()) {
            c = text[pos++];
            c = c == 'n' ? '\n' : c;
        }
        out += c;
    }
    if (pos >= text.size()) {
        return std::nullopt;
    }
    ++pos;
    return out;
}

// `{a="x",b="y"}` from `pos`; `pos` ends past the closing brace.
std::optional<std::map<std::string, std::string>> label_set(std::string_view text,
                                                            std::size_t& pos) {
    std::map<std::string, std::string> labels;
    ++pos;  // '{'
    while (pos < text.size() && text[pos] != '}') {
        const auto eq = text.find("=\"", pos);
        if (eq == std::string_view::npos) {
            return std::nullopt;
        }
        const std::string key(text.substr(pos, eq - pos));
        pos = eq + 2;
        auto value = quoted(text, pos);
        if (!value) {
            return std::nullopt;
        }
        labels[key] = std::move(*value);
        if (pos < text.size() && text[pos] == ',') {
            ++pos;
        }
    }
    if (pos >= text.size()) {
        return std::nullopt;
    }
    ++pos;
    return labels;
}

// A sample line `name{labels} value` (no timestamp, as the renderer writes them).
std::optional<Sample> sample_of(std::string_view line) {
    const auto end = line.find_first_of("{ ");
    if (line.empty() || line[0] == '#' || end == std::string_view::npos) {
        return std::nullopt;
    }
    Sample sample{.name = std::string(line.substr(0, end))};
    std::size_t pos = end;
    if (line[pos] == '{') {
        auto labels = label_set(line, pos);
        if (!labels) {
            return std::nullopt;
        }
        sample.labels = std::move(*labels);
    }
    if (pos >= line.size() || line[pos] != ' ') {
        return std::nullopt;
    }
    const auto value = number(util::trim(line.substr(pos + 1)));
    if (!value) {
        return std::nullopt;
    }
    sample.value = *value;
    return sample;
}

std::vector<Sample> samples_named(std::string_view textfile, std::string_view name) {
    std::vector<Sample> out;
    for (const auto line : util::split_lines(textfile)) {
        if (line.starts_with(name)) {
            if (auto sample = sample_of(line); sample && sample->name == name) {
                out.push_back(std::move(*sample));
            }
        }
    }
    return out;
}

std::string label(const Sample& sample, const std::string& key) {
    const auto found = sample.labels.find(key);
    return found == sample.labels.end() ? std::string() : found->second;
}

}  // namespace

std::optional<double> last_success_in(std::string_view textfile) {
    for (const auto& sample : samples_named(textfile, kLastSuccess)) {
        if (sample.labels.empty() && sample.value > 0) {
            return sample.value;
        }
    }
    return std::nullopt;
}

std::map<NvlinkCounterKey, double> nvlink_link_errors_in(std::string_view textfile) {
    std::map<std::string, std::string> uuids;  // the file's GPU index label -> UUID
    for (const auto& info : samples_named(textfile, kGpuInfo)) {
        uuids[label(info, "gpu")] = label(info, "UUID");
    }
    std::map<NvlinkCounterKey, double> out;
    const auto& names = model::kNvlinkCounterNames;
    for (const auto& sample : samples_named(textfile, kLinkErrors)) {
        const auto uuid = uuids.find(label(sample, "gpu"));
        const auto link = util::parse_int<int>(label(sample, "link"));
        const auto counter = label(sample, "counter");
        if (uuid == uuids.end() || uuid->second.empty() || !link || *link < 0 ||
            std::find(names.begin(), names.end(), counter) == names.end() ||
            !std::isfinite(sample.value) || sample.value < 0) {
            continue;
        }
        out[{.uuid = uuid->second, .link = *link, .counter = counter}] = sample.value;
    }
    return out;
}

}  // namespace peergate::report::exports
