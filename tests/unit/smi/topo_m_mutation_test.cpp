// SPDX-License-Identifier: Apache-2.0
// Issue 33's property: every real `nvidia-smi topo -m` fixture, mutated as pastes and cut-off
// outputs mutate it (cut at every line, two columns swapped, two cells of a row swapped, a
// cell glued to its neighbour, CRLF, tabs to spaces), reads to the original reading or is
// unreadable: never a third answer. The one documented exception: a cut that drops the
// NIC Legend whole leaves the NIC<n> columns without a device, as a paste without the
// legend has them (docs/gate-rules.md §3 tier 2).
#include "sources/smi/topo_m_parser.hpp"
#include "support/fixture_files.hpp"
#include "util/strings.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace peergate::sources::smi {
namespace {

// The reading, independent of column order: per GPU index its NUMA node, CPU list and label
// to every other index; per NIC name its device and path to every GPU index.
std::string reading_of(const model::Topology& t) {
    std::map<int, std::string> gpus;
    for (std::size_t p = 0; p < t.size(); ++p) {
        std::string row = (t.gpus[p].numa_node ? std::to_string(*t.gpus[p].numa_node) : "?") + " " +
                          t.gpus[p].cpu_affinity + ":";
        std::map<int, std::string> labels;
        for (std::size_t q = 0; q < t.size(); ++q) {
            labels[t.gpus[q].index] = t.matrix[p][q].to_token();
        }
        for (const auto& [index, label] : labels) {
            row += " " + std::to_string(index) + "=" + label;
        }
        gpus[t.gpus[p].index] = row;
    }
    std::map<std::string, std::string> nics;
    for (const auto& nic : t.nics) {
        std::map<int, std::string> paths;
        for (std::size_t p = 0; p < t.size(); ++p) {
            paths[t.gpus[p].index] = nic.paths[p].to_token();
        }
        std::string row = nic.device + ":";
        for (const auto& [index, label] : paths) {
            row += " " + std::to_string(index) + "=" + label;
        }
        nics[nic.name] = row;
    }
    std::string out;
    for (const auto& [index, row] : gpus) {
        out += "GPU" + std::to_string(index) + " " + row + "\n";
    }
    for (const auto& [name, row] : nics) {
        out += name + " " + row + "\n";
    }
    return out;
}

// The original reading with the NIC Legend's devices forgotten.
std::string without_legend(model::Topology t) {
    for (auto& nic : t.nics) {
        if (nic.name.rfind("NIC", 0) == 0) {
            nic.device.clear();
        }
    }
    return reading_of(t);
}

struct Original {
    std::string name;
    std::string text;
    std::optional<model::Topology> topology;  // nullopt: the original is unreadable
};

std::vector<Original> originals() {
    std::vector<Original> out;
    for (const auto& name : test::fixture_names("topo_m")) {
        Original original{name, test::read_fixture("topo_m", name), std::nullopt};
        if (auto parsed = parse_topo_m(original.text)) {
            original.topology = std::move(*parsed);
        }
        out.push_back(std::move(original));
    }
    return out;
}

// Checks one mutation; `legend_may_go` allows the legend-less reading. Returns whether the
// mutation was read (for the counts the tests print).
bool expect_original_or_unreadable(const Original& original,
                                   const std::string& mutated,
                                   const std::string& what,
                                   bool legend_may_go = false) {
    const auto parsed = parse_topo_m(mutated);
    if (!parsed) {
        EXPECT_NE(parsed.error().message.find("unreadable"), std::string::npos);
        return false;
    }
    if (!original.topology) {
        ADD_FAILURE() << original.name << ", " << what << ": an unreadable original became:\n"
                      << reading_of(*parsed);
        return true;
    }
    const std::string got = reading_of(*parsed);
    const bool same = got == reading_of(*original.topology) ||
                      (legend_may_go && got == without_legend(*original.topology));
    EXPECT_TRUE(same) << original.name << ", " << what << ": a third answer\n"
                      << got << "instead of\n"
                      << reading_of(*original.topology) << "from:\n"
                      << mutated;
    return true;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto end = text.find('\n', start);
        out.push_back(text.substr(start, end == std::string::npos ? end : end - start + 1));
        start = end == std::string::npos ? text.size() : end + 1;
    }
    return out;
}

TEST(TopoMMutation, EveryCutAtALineIsTheReadingOrUnreadable) {
    for (const auto& original : originals()) {
        const auto lines = lines_of(original.text);
        std::string kept;
        bool legend_seen = false;
        for (std::size_t k = 0; k < lines.size(); ++k) {
            expect_original_or_unreadable(
                original, kept, "cut after line " + std::to_string(k), !legend_seen);
            kept += lines[k];
            legend_seen = legend_seen || lines[k].find("NIC Legend:") != std::string::npos;
        }
    }
}

// A line's cells: runs of non-blank characters, with the header's multi-word columns joined
// as the header shows them.
std::vector<std::string> cells_of(const std::string& line) {
    std::vector<std::string> cells;
    // The line end is not part of the last cell: a swap must not move it mid-line.
    for (const auto token : util::split_whitespace(util::trim(line))) {
        cells.emplace_back(token);
    }
    for (const auto& [first, joined] :
         std::vector<std::pair<std::string, std::size_t>>{{"CPU", 2}, {"NUMA", 2}, {"GPU", 3}}) {
        for (std::size_t i = 0; i + joined <= cells.size(); ++i) {
            const bool affinity = first != "GPU" ? cells[i + 1] == "Affinity"
                                                 : cells[i + 1] == "NUMA" && cells[i + 2] == "ID";
            if (cells[i] == first && affinity) {
                for (std::size_t k = 1; k < joined; ++k) {
                    cells[i] += " " + cells[i + 1];
                    cells.erase(cells.begin() + static_cast<long>(i) + 1);
                }
            }
        }
    }
    return cells;
}

// The index of the matrix header line (the first whose first two cells are GPU columns).
std::optional<std::size_t> header_line(const std::vector<std::string>& lines) {
    for (std::size_t k = 0; k < lines.size(); ++k) {
        const auto cells = cells_of(lines[k]);
        if (cells.size() >= 2 && cells[0].rfind("GPU", 0) == 0 && cells[1].rfind("GPU", 0) == 0 &&
            cells[0] != cells[1]) {
            return k;
        }
    }
    return std::nullopt;
}

std::string joined(const std::vector<std::string>& cells, const std::string& tail) {
    return "\t" + util::join(cells, "\t") + tail;
}

// Header column i and j swapped, and cells i and j (after the row's label) of every row
// that has both: the same table with two columns moved, which must read the same.
std::string columns_swapped(std::vector<std::string> lines,
                            std::size_t h,
                            std::size_t i,
                            std::size_t j) {
    auto header = cells_of(lines[h]);
    std::swap(header[i], header[j]);
    lines[h] = joined(header, "\n");
    for (std::size_t k = h + 1; k < lines.size() && lines[k].find("Legend") == std::string::npos;
         ++k) {
        auto cells = cells_of(lines[k]);
        if (cells.size() > j + 1) {
            std::swap(cells[i + 1], cells[j + 1]);
            lines[k] = util::join(cells, "\t") + "\n";
        }
    }
    return util::join(lines, "");
}

TEST(TopoMMutation, TwoWholeColumnsSwappedReadTheSameOrAreUnreadable) {
    std::size_t read = 0;
    std::size_t refused = 0;
    for (const auto& original : originals()) {
        const auto lines = lines_of(original.text);
        const auto h = header_line(lines);
        if (!h) {
            continue;
        }
        const std::size_t width = cells_of(lines[*h]).size();
        for (std::size_t i = 0; i < width; ++i) {
            for (std::size_t j = i + 1; j < width; ++j) {
                const bool ok = expect_original_or_unreadable(
                    original,
                    columns_swapped(lines, *h, i, j),
                    "columns " + std::to_string(i) + " and " + std::to_string(j) + " swapped");
                (ok ? read : refused) += 1;
            }
        }
    }
    EXPECT_GT(read, 0U) << "swapping two GPU or affinity columns keeps the reading";
    EXPECT_GT(refused, 0U) << "a GPU column moved among the NIC columns is no header";
}

TEST(TopoMMutation, TwoCellsOfARowSwappedAreTheReadingOrUnreadable) {
    for (const auto& original : originals()) {
        auto lines = lines_of(original.text);
        const auto h = header_line(lines);
        for (std::size_t k = h ? *h + 1 : lines.size(); k < lines.size(); ++k) {
            const auto cells = cells_of(lines[k]);
            if (lines[k].find("Legend") != std::string::npos) {
                break;
            }
            for (std::size_t i = 1; i < cells.size(); ++i) {
                for (std::size_t j = i + 1; j < cells.size(); ++j) {
                    auto swapped = cells;
                    std::swap(swapped[i], swapped[j]);
                    auto mutated = lines;
                    mutated[k] = util::join(swapped, "\t") + "\n";
                    expect_original_or_unreadable(original,
                                                  util::join(mutated, ""),
                                                  "line " + std::to_string(k + 1) + " cells " +
                                                      std::to_string(i) + " and " +
                                                      std::to_string(j) + " swapped");
                }
            }
        }
    }
}

TEST(TopoMMutation, ACellGluedToItsNeighbourIsTheReadingOrUnreadable) {
    for (const auto& original : originals()) {
        const auto lines = lines_of(original.text);
        const auto h = header_line(lines);
        for (std::size_t k = h.value_or(lines.size()); k < lines.size(); ++k) {
            if (lines[k].find("Legend") != std::string::npos) {
                break;
            }
            const auto cells = cells_of(lines[k]);
            for (std::size_t i = 0; i + 1 < cells.size(); ++i) {
                auto glued = cells;
                glued[i] += glued[i + 1];
                glued.erase(glued.begin() + static_cast<long>(i) + 1);
                auto mutated = lines;
                mutated[k] = util::join(glued, "\t") + "\n";
                expect_original_or_unreadable(original,
                                              util::join(mutated, ""),
                                              "line " + std::to_string(k + 1) + " cell " +
                                                  std::to_string(i) + " glued to the next");
            }
        }
    }
}

TEST(TopoMMutation, CrlfAndTabsToSpacesReadTheSame) {
    for (const auto& original : originals()) {
        std::string crlf;
        std::string spaces;
        for (const char c : original.text) {
            crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
            spaces += c == '\t' ? std::string("    ") : std::string(1, c);
        }
        for (const auto& [what, mutated] :
             {std::pair{"CRLF", crlf}, std::pair{"tabs to spaces", spaces}}) {
            const auto parsed = parse_topo_m(mutated);
            ASSERT_EQ(parsed.has_value(), original.topology.has_value())
                << original.name << ", " << what;
            if (parsed) {
                EXPECT_EQ(reading_of(*parsed), reading_of(*original.topology))
                    << original.name << ", " << what;
            }
        }
    }
}

}  // namespace
}  // namespace peergate::sources::smi
