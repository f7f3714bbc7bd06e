// SPDX-License-Identifier: Apache-2.0
#include "report/topology/text_columns.hpp"

#include <algorithm>

namespace peergate::report::topology {

namespace {

constexpr std::string_view kReset = "\x1b[0m";

// Each column's widest text, over every row.
std::vector<std::size_t> column_widths(const std::vector<TextRow>& rows) {
    std::vector<std::size_t> widths;
    for (const auto& row : rows) {
        widths.resize(std::max(widths.size(), row.size()), 0);
        for (std::size_t k = 0; k < row.size(); ++k) {
            widths[k] = std::max(widths[k], row[k].text.size());
        }
    }
    return widths;
}

void append_cell(std::string& out, const TextCell& cell) {
    if (cell.tint.empty()) {
        out += cell.text;
        return;
    }
    out += cell.tint;
    out += cell.text;
    out += kReset;
}

}  // namespace

std::string columns_to_text(const std::vector<TextRow>& rows) {
    const auto widths = column_widths(rows);
    std::string out;
    for (const auto& row : rows) {
        for (std::size_t k = 0; k < row.size(); ++k) {
            append_cell(out, row[k]);
            if (k + 1 < row.size()) {
                out.append(widths[k] - row[k].text.size() + kColumnGap, ' ');
            }
        }
        out += '\n';
    }
    return out;
}

}  // namespace peergate::report::topology
