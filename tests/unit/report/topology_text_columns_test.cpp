// SPDX-License-Identifier: Apache-2.0
// The topo text's columns (report/topology/text_columns.hpp): each as wide as its widest cell
// and two spaces apart, so that no two cells ever touch (issue 52); colour codes take no width.
#include "report/topology/text_columns.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace peergate::report::topology {
namespace {

TEST(TextColumns, EachColumnIsAsWideAsItsWidestCellPlusTheGap) {
    const std::vector<TextRow> rows{
        {{.text = ""}, {.text = "GPU0"}, {.text = "CPU Affinity"}, {.text = "NUMA"}},
        {{.text = "GPU0"}, {.text = " X "}, {.text = "56-111,168-223"}, {.text = "1"}}};
    EXPECT_EQ(columns_to_text(rows),
              "      GPU0  CPU Affinity    NUMA\n"
              "GPU0   X    56-111,168-223  1\n");
}

TEST(TextColumns, NoCellTouchesTheNextWhateverItsWidth) {
    const std::string wide(40, '7');
    const auto text =
        columns_to_text({{{.text = wide}, {.text = "a"}}, {{.text = "b"}, {.text = "c"}}});
    EXPECT_EQ(text, wide + "  a\nb" + std::string(41, ' ') + "c\n");
}

TEST(TextColumns, ColourWrapsTheTextAndTakesNoWidth) {
    const auto text = columns_to_text(
        {{{.text = "NV18", .tint = "\x1b[32m"}, {.text = "0"}}, {{.text = "SYS"}, {.text = "1"}}});
    EXPECT_EQ(text, "\x1b[32mNV18\x1b[0m  0\nSYS   1\n");
}

TEST(TextColumns, ARowsLastCellIsNotPaddedAndRowsMayBeShort) {
    const auto text =
        columns_to_text({{{.text = "NIC0"}, {.text = "PIX"}, {.text = "mlx5_0 ibp7s0"}},
                         {{.text = "NIC10"}, {.text = "SYS"}}});
    EXPECT_EQ(text, "NIC0   PIX  mlx5_0 ibp7s0\nNIC10  SYS\n");
}

}  // namespace
}  // namespace peergate::report::topology
