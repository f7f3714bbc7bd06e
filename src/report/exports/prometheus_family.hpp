// SPDX-License-Identifier: Apache-2.0
// One metric family of the Prometheus text format 0.0.4 (docs/ecosystem.md §2.1): HELP and TYPE
// first, then its samples, with label values and HELP text escaped as the format requires.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace peergate::report::exports {

using PrometheusLabels = std::vector<std::pair<std::string, std::string>>;

// A label value as the text format writes it: \ " and newline escaped.
std::string prometheus_label_value(std::string_view value);

// One family's lines: appending a whole family at a time keeps every family contiguous,
// which the format requires.
class PrometheusFamily {
public:
    PrometheusFamily(std::string name, std::string_view type, std::string_view help);

    void sample(const PrometheusLabels& labels, double value);

    // "" for a family without samples (a machine of one GPU has no pairs): node_exporter
    // drops such families, and a reader has nothing to learn from them.
    std::string text() const { return samples_ > 0 ? text_ : ""; }

private:
    std::string text_;
    std::string name_;
    int samples_ = 0;
};

}  // namespace peergate::report::exports
