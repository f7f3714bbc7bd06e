// SPDX-License-Identifier: Apache-2.0
#include "report/exports/prometheus_family.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

namespace peergate::report::exports {

namespace {

std::string escape_help(std::string_view text) {
    std::string out;
    for (char c : text) {
        out += c == '\\' ? std::string("\\\\") : c == '\n' ? std::string("\\n") : std::string(1, c);
    }
    return out;
}

}  // namespace

std::string prometheus_label_value(std::string_view value) {
    std::string out;
    for (char c : value) {
        if (c == '\\' || c == '"') {
            out += '\\';
            out += c;
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

PrometheusFamily::PrometheusFamily(std::string name, std::string_view type, std::string_view help)
    : text_(fmt::format("# HELP {} {}\n# TYPE {} {}\n", name, escape_help(help), name, type)),
      name_(std::move(name)) {}

void PrometheusFamily::sample(const PrometheusLabels& labels, double value) {
    ++samples_;
    text_ += name_;
    if (!labels.empty()) {
        std::vector<std::string> parts;
        for (const auto& [key, label_value] : labels) {
            parts.push_back(fmt::format("{}=\"{}\"", key, prometheus_label_value(label_value)));
        }
        text_ += "{" + util::join(parts, ",") + "}";
    }
    text_ += fmt::format(" {}\n", value);
}

}  // namespace peergate::report::exports
