// SPDX-License-Identifier: Apache-2.0
// A plain-text table laid out in columns, as `topo` prints the matrix and the NIC rows: each
// column as wide as its widest cell, so that a long cell (a CPU list such as 56-111,168-223 on
// a two-socket host) never runs into the next one (issue 52). Pure.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace peergate::report::topology {

// The spaces between two columns, whatever their cells.
inline constexpr std::size_t kColumnGap = 2;

// One cell: its text, and the ANSI colour to paint that text in ("" for none). The colour
// wraps the text only, never the padding, so widths count the text alone.
struct TextCell {
    std::string text;
    std::string_view tint{};
};

using TextRow = std::vector<TextCell>;

// The rows, one line each: cell k padded to column k's widest text plus kColumnGap spaces; a
// row's last cell is not padded, so no line ends in spaces. Rows may have fewer cells than
// others (a row without the trailing columns).
std::string columns_to_text(const std::vector<TextRow>& rows);

}  // namespace peergate::report::topology
