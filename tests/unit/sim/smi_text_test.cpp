// SPDX-License-Identifier: Apache-2.0
// The simulated nvidia-smi's texts: read back by the real parsers to the machine's own
// answers, and laid out as the real tool lays them out.
#include "sim/machine/smi_text.hpp"

#include "sources/smi/query_gpu_parser.hpp"
#include "sources/smi/topo_m_parser.hpp"
#include "support/sim_machines.hpp"
#include "util/strings.hpp"

#include <gtest/gtest.h>

namespace peergate::sim {
namespace {

using test::builtin_machine_names;
using test::load_builtin_machine;

// Tabs expanded to 8-column stops, as a terminal (and the fixture's author) shows them.
std::string expand_tabs(std::string_view text) {
    std::string out;
    std::size_t column = 0;
    for (const char c : text) {
        if (c == '\t') {
            do {
                out += ' ';
            } while (++column % 8 != 0);
        } else {
            out += c;
            column = c == '\n' ? 0 : column + 1;
        }
    }
    return out;
}

TEST(SimTopoM, ParsesBackToTheMachinesMatrixForEveryBuiltin) {
    for (const auto& name : builtin_machine_names()) {
        SCOPED_TRACE(name);
        const auto machine = load_builtin_machine(name);
        const auto parsed = sources::smi::parse_topo_m(render_topo_m(machine));
        if (machine.gpus.size() < 2) {
            EXPECT_FALSE(parsed.has_value())
                << "one GPU has no pair: nvidia-smi's matrix proves nothing";
            continue;
        }
        ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
        const auto expected = snapshot::machine_topology(machine);
        EXPECT_EQ(parsed->matrix, expected.matrix);
        for (std::size_t p = 0; p < expected.size(); ++p) {
            EXPECT_EQ(parsed->gpus[p].index, expected.gpus[p].index);
            EXPECT_EQ(parsed->gpus[p].numa_node, expected.gpus[p].numa_node);
            EXPECT_EQ(parsed->gpus[p].cpu_affinity, expected.gpus[p].cpu_affinity);
        }
    }
}

TEST(SimTopoM, HasTheRealLayout) {
    const auto text = render_topo_m(load_builtin_machine("hgx-b200-8x"));
    const auto lines = util::split_lines(text);
    ASSERT_GE(lines.size(), 10U);
    EXPECT_EQ(lines[0],
              "\t\x1b[4mGPU0\tGPU1\tGPU2\tGPU3\tGPU4\tGPU5\tGPU6\tGPU7\tCPU Affinity\tNUMA "
              "Affinity\tGPU NUMA ID\x1b[0m");
    EXPECT_EQ(lines[1],
              "GPU0\t X \tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\t0-47,96-143\t0\t\tN/A");
    EXPECT_EQ(lines[8],
              "GPU7\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\tNV18\t X \t48-95,144-191\t1\t\tN/A");
    EXPECT_EQ(lines[9], "");
    EXPECT_EQ(lines[10], "Legend:");
    EXPECT_NE(text.find("  NV#  = Connection traversing a bonded set of # NVLinks\n"),
              std::string::npos);
}

TEST(SimTopoM, TruncatedOutputIsUnreadableNotAGuess) {
    const auto machine = load_builtin_machine("hgx-b200-8x");
    const auto text = render_topo_m(machine, 4);
    EXPECT_EQ(util::split_lines(text).size(), 5U);
    EXPECT_EQ(text.find("Legend"), std::string::npos);
    const auto parsed = sources::smi::parse_topo_m(text);
    ASSERT_FALSE(parsed.has_value());
    EXPECT_NE(parsed.error().message.find("missing row for GPU4"), std::string::npos)
        << parsed.error().message;
}

TEST(SimTopoP2p, MatchesTheRealEightGpuOutputByteForByte) {
    // ../shared/fixtures: a real 8x H100 `nvidia-smi topo -p2p r` (tabs expanded by the
    // page it came from). Ours differs only by the DR legend line that newer drivers print.
    auto fixture = util::read_file(std::string(PEERGATE_TEST_FIXTURES) +
                                   "/topo_p2p/ml-engineering-debug_8xH100_p2p_r_all_OK.txt");
    ASSERT_TRUE(fixture.has_value());
    std::string expected =
        fixture->substr(fixture->find('\n') + 1);  // drop the "$ nvidia-smi" prompt
    const std::string dr_line = "  DR   = Disabled by regkey\n";
    std::string ours =
        expand_tabs(render_topo_p2p(load_builtin_machine("hgx-b200-8x"), snapshot::P2pCaps::read));
    const auto dr = ours.find(dr_line);
    ASSERT_NE(dr, std::string::npos);
    ours.erase(dr, dr_line.size());
    EXPECT_EQ(ours, expected);
}

TEST(SimTopoP2p, ShowsDerivedAndExplicitStatuses) {
    const auto bridged =
        render_topo_p2p(load_builtin_machine("bridged-a100-4x"), snapshot::P2pCaps::nvlink);
    EXPECT_NE(bridged.find(" GPU0\tX\tOK\tNS\tNS\n"), std::string::npos) << bridged;
    const auto geforce =
        render_topo_p2p(load_builtin_machine("rtx4090-8x-pcie"), snapshot::P2pCaps::write);
    EXPECT_NE(geforce.find(" GPU1\tGNS\tX\tGNS"), std::string::npos) << geforce;
}

TEST(SimQueryGpu, PrintsCsvTheRealParserReads) {
    const auto machine = load_builtin_machine("dgx1-v100");
    auto text = render_query_gpu(machine, "index,name,pci.bus_id,uuid", CsvFormat{.header = false});
    ASSERT_TRUE(text.has_value());
    auto gpus = sources::smi::parse_query_gpu(*text);
    ASSERT_TRUE(gpus.has_value()) << gpus.error().message;
    ASSERT_EQ(gpus->size(), 8U);
    EXPECT_EQ((*gpus)[4].name, "Tesla V100-SXM2-32GB");
    EXPECT_EQ((*gpus)[4].pci, machine.gpus[4].pci);
    EXPECT_EQ((*gpus)[4].uuid, machine.gpus[4].uuid);
}

TEST(SimQueryGpu, HeaderUnitsAndUnknownFields) {
    const auto machine = load_builtin_machine("single-h200");
    auto with_units =
        render_query_gpu(machine, "index,memory.total,driver_version,compute_cap", CsvFormat{});
    ASSERT_TRUE(with_units.has_value());
    EXPECT_EQ(
        *with_units,
        "index, memory.total [MiB], driver_version, compute_cap\n0, 143771 MiB, 570.86.15, 9.0\n");
    auto bare =
        render_query_gpu(machine, "memory.total", CsvFormat{.header = false, .units = false});
    EXPECT_EQ(*bare, "143771\n");
    auto unknown = render_query_gpu(machine, "index,bogus", CsvFormat{});
    ASSERT_FALSE(unknown.has_value());
    EXPECT_EQ(unknown.error().message, "Field \"bogus\" is not a valid field to query.");
    EXPECT_FALSE(parse_csv_format("json").has_value());
    EXPECT_FALSE(parse_csv_format("csv,pretty").has_value());
    EXPECT_FALSE(parse_csv_format("csv,noheader,nounits")->header);
}

TEST(SimList, OneLinePerGpu) {
    const auto machine = load_builtin_machine("bridged-a100-4x");
    const std::string text = render_list(machine);
    const auto lines = util::split_lines(text);
    ASSERT_EQ(lines.size(), 4U);
    EXPECT_EQ(lines[2], "GPU 2: NVIDIA A100 80GB PCIe (UUID: " + machine.gpus[2].uuid + ")");
}

}  // namespace
}  // namespace peergate::sim
