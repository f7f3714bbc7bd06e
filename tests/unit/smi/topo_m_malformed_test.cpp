// SPDX-License-Identifier: Apache-2.0
// Hand-made `nvidia-smi topo -m` inputs: every rule of docs/gate-rules.md §3 tier 2 and every
// stricter check, each failure naming its check. Unreadable is an error, never a guess.
#include "sources/smi/topo_m_parser.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace peergate::sources::smi {
namespace {

// The smallest well-formed matrix: two GPUs on one NVLink bridge.
constexpr const char* kTwoGpus =
    "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV4\t0-15\t0\n"
    "GPU1\tNV4\t X \t0-15\t0\n";

std::string error_of(std::string_view text) {
    const auto parsed = parse_topo_m(text);
    EXPECT_FALSE(parsed.has_value()) << "expected unreadable:\n" << text;
    return parsed ? std::string() : parsed.error().message;
}

model::Topology parsed_ok(std::string_view text) {
    auto parsed = parse_topo_m(text);
    EXPECT_TRUE(parsed.has_value()) << (parsed ? "" : parsed.error().message);
    return parsed ? *parsed : model::Topology{};
}

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
    for (auto pos = text.find(from); pos != std::string::npos;
         pos = text.find(from, pos + to.size())) {
        text.replace(pos, from.size(), to);
    }
    return text;
}

TEST(TopoMParser, ReadsTheSmallestWellFormedMatrix) {
    const auto t = parsed_ok(kTwoGpus);
    ASSERT_EQ(t.size(), 2U);
    EXPECT_EQ(*t.label(0, 1), model::LinkLabel::nvlink(4));
    EXPECT_EQ(*t.label(1, 0), model::LinkLabel::nvlink(4));
    EXPECT_EQ(*t.label(0, 0), model::LinkLabel::self());
    EXPECT_EQ(t.gpus[1].cpu_affinity, "0-15");
    EXPECT_EQ(t.gpus[1].numa_node, 0);
}

TEST(TopoMParser, EmptyInputHasNoHeader) {
    EXPECT_NE(error_of("").find("no header"), std::string::npos);
    EXPECT_NE(error_of("\n\n   \n\t\n").find("no header"), std::string::npos);
}

TEST(TopoMParser, BinaryGarbageIsUnreadableNotACrash) {
    std::mt19937 rng(2024);
    std::uniform_int_distribution<int> byte(0, 255);
    for (int round = 0; round < 50; ++round) {
        std::string garbage(4096, '\0');
        for (char& c : garbage) {
            c = static_cast<char>(byte(rng));
        }
        EXPECT_FALSE(parse_topo_m(garbage).has_value());
    }
    EXPECT_FALSE(parse_topo_m(std::string("\0\0\0GPU0\0GPU1\0", 14)).has_value());
}

TEST(TopoMParser, TenMegabyteLineOfJunkIsUnreadable) {
    const std::string line(10U << 20U, 'A');
    EXPECT_NE(error_of(line).find("no header"), std::string::npos);
}

TEST(TopoMParser, TenMegabyteJunkLineBeforeTheHeaderIsSkipped) {
    std::string text(10U << 20U, 'x');
    text += "\n";
    text += kTwoGpus;
    const auto t = parsed_ok(text);
    EXPECT_EQ(t.size(), 2U);
}

TEST(TopoMParser, MegabyteHeaderOfGpuColumnsIsRefusedBeforeAllocatingTheMatrix) {
    // ~120,000 distinct columns: the n x n matrix would be over 100 GB.
    std::string header;
    for (int i = 0; header.size() < (1U << 20U); ++i) {
        header += "GPU" + std::to_string(i) + "\t";
    }
    const std::string text = header + "\nGPU0\t X \tNV4\n";
    const std::string why = error_of(text);
    EXPECT_NE(why.find("header:"), std::string::npos) << why;
    EXPECT_NE(why.find("more than 1024"), std::string::npos) << why;
}

TEST(TopoMParser, TenMegabyteRowIsReadForItsLabelsOnly) {
    const std::string text =
        "\tGPU0\tGPU1\nGPU0\t X \tNV4\t" + std::string(10U << 20U, '7') + "\nGPU1\tNV4\t X \n";
    const auto t = parsed_ok(text);
    EXPECT_EQ(*t.label(0, 1), model::LinkLabel::nvlink(4));
}

TEST(TopoMParser, HeaderOnlyHasNoRows) {
    EXPECT_NE(error_of("\tGPU0\tGPU1\tCPU Affinity\n").find("a header but no GPU rows"),
              std::string::npos);
}

TEST(TopoMParser, SingleGpuHeaderIsNotAHeader) {
    // The spec's header needs a run of at least two GPU<n> columns; one GPU has no pairs.
    EXPECT_NE(error_of("\tGPU0\tCPU Affinity\nGPU0\t X \t0-7\n").find("no header"),
              std::string::npos);
}

TEST(TopoMParser, DuplicateRowIsUnreadable) {
    const std::string text = std::string(kTwoGpus) + "GPU1\tNV4\t X \t0-15\t0\n";
    EXPECT_NE(error_of(text).find("row GPU1 appears twice"), std::string::npos);
}

TEST(TopoMParser, DuplicateHeaderColumnIsUnreadable) {
    const std::string text = "\tGPU0\tGPU0\nGPU0\t X \tNV4\nGPU0\tNV4\t X \n";
    EXPECT_NE(error_of(text).find("header: column GPU0 appears twice"), std::string::npos);
}

TEST(TopoMParser, RowForAGpuWithoutAColumnIsUnreadable) {
    const std::string text = std::string(kTwoGpus) + "GPU2\tNV4\tNV4\n";
    EXPECT_NE(error_of(text).find("row GPU2 has no column in the header"), std::string::npos);
}

TEST(TopoMParser, AsymmetricMatrixFailsTheSymmetryCheck) {
    const std::string text =
        "\tGPU0\tGPU1\tGPU2\n"
        "GPU0\t X \tNV4\tSYS\n"
        "GPU1\tNV4\t X \tSYS\n"
        "GPU2\tSYS\tPHB\t X \n";
    const std::string why = error_of(text);
    EXPECT_NE(why.find("symmetry:"), std::string::npos) << why;
    EXPECT_NE(why.find("GPU1 to GPU2 is SYS but GPU2 to GPU1 is PHB"), std::string::npos) << why;
}

TEST(TopoMParser, NvlinkCountMismatchIsAsymmetric) {
    const std::string text = "\tGPU0\tGPU1\nGPU0\t X \tNV4\nGPU1\tNV2\t X \n";
    EXPECT_NE(error_of(text).find("symmetry:"), std::string::npos);
}

TEST(TopoMParser, UnknownTokenFailsTheVocabularyCheck) {
    for (const std::string bad : {"NV0", "NVx", "nv4", "P2P", "?", "OK", "N/A"}) {
        SCOPED_TRACE(bad);
        const std::string why =
            error_of(replace_all(kTwoGpus, "GPU0\t X \tNV4", "GPU0\t X \t" + bad));
        EXPECT_NE(why.find("vocabulary: GPU0 to GPU1 is '" + bad + "'"), std::string::npos) << why;
    }
}

TEST(TopoMParser, NonSelfDiagonalFailsTheDiagonalCheck) {
    const std::string why = error_of(replace_all(kTwoGpus, "GPU1\tNV4\t X ", "GPU1\tNV4\tNV4"));
    EXPECT_NE(why.find("diagonal: GPU1 to itself is NV4, not X"), std::string::npos) << why;
}

TEST(TopoMParser, SelfOffTheDiagonalFailsTheDiagonalCheck) {
    const std::string text = "\tGPU0\tGPU1\nGPU0\t X \t X \nGPU1\t X \t X \n";
    EXPECT_NE(error_of(text).find("diagonal: GPU0 to GPU1 is X off the diagonal"),
              std::string::npos);
}

TEST(TopoMParser, CrlfLineEndsReadLikeLf) {
    const std::string crlf = replace_all(kTwoGpus, "\n", "\r\n");
    EXPECT_EQ(parsed_ok(crlf), parsed_ok(kTwoGpus));
    EXPECT_EQ(parsed_ok(crlf).gpus[0].numa_node, 0)
        << "a trailing CR must not spoil the last column";
}

TEST(TopoMParser, TabsAndSpacesReadAlike) {
    const std::string spaces = replace_all(kTwoGpus, "\t", "    ");
    const std::string mixed = replace_all(kTwoGpus, "\t", " \t  ");
    EXPECT_EQ(parsed_ok(spaces), parsed_ok(kTwoGpus));
    EXPECT_EQ(parsed_ok(mixed), parsed_ok(kTwoGpus));
}

TEST(TopoMParser, AnsiUnderlinedHeaderReadsLikePlain) {
    const std::string ansi =
        replace_all(kTwoGpus,
                    "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n",
                    "\t\x1b[4mGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\x1b[0m\n");
    ASSERT_NE(ansi, kTwoGpus);
    EXPECT_EQ(parsed_ok(ansi), parsed_ok(kTwoGpus));
}

TEST(TopoMParser, NicColumnsStayOutOfTheGpuMatrix) {
    const std::string text =
        "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\n"
        "GPU0\t X \tNV8\tPIX\tSYS\t0-7\t0\n"
        "GPU1\tNV8\t X \tSYS\tPIX\t8-15\t1\n"
        "NIC0\tPIX\tSYS\t X \tSYS\n"
        "NIC1\tSYS\tPIX\tSYS\t X \n";
    const auto t = parsed_ok(text);
    ASSERT_EQ(t.size(), 2U);
    EXPECT_EQ(t.matrix[0].size(), 2U);
    EXPECT_EQ(t.gpus[0].cpu_affinity, "0-7")
        << "the NIC labels must be skipped before the affinity";
    EXPECT_EQ(t.gpus[1].cpu_affinity, "8-15");
    EXPECT_EQ(t.gpus[1].numa_node, 1);
}

// Older drivers and DGX-1/DGX-2/V100/A100 boxes name the NIC columns by RDMA device
// (tests/fixtures/README.md, issue 33): the affinity comes after those cells, not in the first.
constexpr const char* kNamedNics =
    "\tGPU0\tGPU1\tmlx5_0\tmlx5_1\tCPU Affinity\tNUMA Affinity\n"
    "GPU0\t X \tNV8\tPIX\tSYS\t0-7\t0\n"
    "GPU1\tNV8\t X \tSYS\tPIX\t8-15\t1\n"
    "mlx5_0\tPIX\tSYS\t X \tSYS\n"
    "mlx5_1\tSYS\tPIX\tSYS\t X \n";

TEST(TopoMParser, NicColumnsNamedByRdmaDeviceAreSkippedBeforeTheAffinity) {
    const auto t = parsed_ok(kNamedNics);
    ASSERT_EQ(t.size(), 2U);
    EXPECT_EQ(t.matrix[0].size(), 2U);
    EXPECT_EQ(*t.label(0, 1), model::LinkLabel::nvlink(8));
    EXPECT_EQ(t.gpus[0].cpu_affinity, "0-7") << "not the first NIC cell, PIX";
    EXPECT_EQ(t.gpus[0].numa_node, 0);
    EXPECT_EQ(t.gpus[1].cpu_affinity, "8-15");
    EXPECT_EQ(t.gpus[1].numa_node, 1);
}

TEST(TopoMParser, EveryRdmaDeviceNameShapeIsANicColumn) {
    for (const std::string nic :
         {"mlx4_0", "mlx5_17", "bnxt_re0", "irdma1", "efa0", "hfi1_0", "qedr0", "ionic_0"}) {
        SCOPED_TRACE(nic);
        const auto t = parsed_ok("\tGPU0\tGPU1\t" + nic +
                                 "\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
                                 "GPU0\t X \tSYS\tNODE\t0-23\t0\t\tN/A\n"
                                 "GPU1\tSYS\t X \tSYS\t24-47\t1\t\tN/A\n" +
                                 nic + "\tNODE\tSYS\t X \n");
        EXPECT_EQ(t.gpus[0].cpu_affinity, "0-23");
        EXPECT_EQ(t.gpus[1].cpu_affinity, "24-47");
        EXPECT_EQ(t.gpus[1].numa_node, 1);
    }
}

TEST(TopoMParser, AffinityColumnsAreFoundByTheirWordsWhereverTheySit) {
    const auto t = parsed_ok(
        "\tGPU0\tGPU1\tCPU Affinity\tmlx5_0\tNUMA Affinity\n"
        "GPU0\t X \tPHB\t0-7\tPIX\t0\n"
        "GPU1\tPHB\t X \t0-7\tPHB\t0\n"
        "mlx5_0\tPIX\tPHB\t X \n");
    EXPECT_EQ(t.gpus[0].cpu_affinity, "0-7");
    EXPECT_EQ(t.gpus[1].numa_node, 0);
}

TEST(TopoMParser, GpuRowOneNicCellShortOfANamedNicHeaderIsUnreadable) {
    // The row's last NIC cell is gone: read left to right, "0-7" would land under mlx5_1 and
    // "0" under CPU Affinity. The count says the row does not fit; nothing is guessed.
    const std::string text =
        replace_all(kNamedNics, "GPU0\t X \tNV8\tPIX\tSYS\t", "GPU0\t X \tNV8\tPIX\t");
    const std::string why = error_of(text);
    EXPECT_NE(
        why.find("line 2: row GPU0 has 5 cells for 6 header columns (2 GPU, 2 NIC, 2 affinity)"),
        std::string::npos)
        << why;
}

TEST(TopoMParser, GpuRowOneAffinityCellShortOfANamedNicHeaderIsUnreadable) {
    const std::string text = replace_all(kNamedNics, "\t8-15\t1\n", "\t8-15\n");
    const std::string why = error_of(text);
    EXPECT_NE(why.find("line 3: row GPU1 has 5 cells for 6 header columns"), std::string::npos)
        << why;
}

TEST(TopoMParser, NicRowOneCellShortIsUnreadable) {
    const std::string text =
        replace_all(kNamedNics, "mlx5_1\tSYS\tPIX\tSYS\t X \n", "mlx5_1\tSYS\tPIX\tSYS\n");
    const std::string why = error_of(text);
    EXPECT_NE(why.find("line 5: NIC row mlx5_1 has 3 cells for 4 GPU and NIC columns"),
              std::string::npos)
        << why;
}

TEST(TopoMParser, AffinityCellThatIsNoCpuListIsUnreadable) {
    // A header that lost a NIC name while the rows kept its cell: the count still fits
    // because the NUMA cell is also gone, but a link label sits under CPU Affinity.
    const std::string text =
        "\tGPU0\tGPU1\tmlx5_0\tCPU Affinity\tNUMA Affinity\n"
        "GPU0\t X \tNV8\tPIX\tSYS\t0-7\n"
        "GPU1\tNV8\t X \tSYS\tPIX\t8-15\n";
    const std::string why = error_of(text);
    EXPECT_NE(why.find("line 2: row GPU0 has 'SYS' under CPU Affinity, not a CPU list"),
              std::string::npos)
        << why;
}

TEST(TopoMParser, CellUnderANicColumnThatIsNoLabelIsUnreadable) {
    const std::string why =
        error_of(replace_all(kNamedNics, "GPU1\tNV8\t X \tSYS\t", "GPU1\tNV8\t X \t0-3\t"));
    EXPECT_NE(why.find("row GPU1 has '0-3' under mlx5_0, not a link label"), std::string::npos)
        << why;
}

TEST(TopoMParser, HeaderWordOutOfPlaceIsUnreadable) {
    const auto header_error = [](const std::string& header) {
        return error_of(header + "\nGPU0\t X \tNV8\tPIX\t0-7\nGPU1\tNV8\t X \tPIX\t0-7\n");
    };
    EXPECT_NE(header_error("\tGPU0\tGPU1\tmlx5_0\tAffinity")
                  .find("line 1: header: 'Affinity' is not part of a CPU Affinity"),
              std::string::npos);
    EXPECT_NE(header_error("\tGPU0\tGPU1\tmlx5_0\tGPU2").find("column GPU2 after the non-GPU"),
              std::string::npos);
    EXPECT_NE(header_error("\tGPU0\tGPU1\tmlx5_0\tmlx5_0").find("column mlx5_0 appears twice"),
              std::string::npos);
    EXPECT_NE(header_error("\tGPU0\tGPU1\tPIX\tCPU Affinity")
                  .find("'PIX' is a link label, not a NIC name"),
              std::string::npos);
}

TEST(TopoMParser, NumaAffinityListOfNodesIsUnreadable) {
    // "0-15" and "0-1" swapped read as CPU 0-1 and nodes 0-15: a list under NUMA Affinity
    // cannot be told from a CPU list one column off, so it is refused, not read as unknown.
    const std::string why =
        error_of(replace_all(kTwoGpus, "GPU1\tNV4\t X \t0-15\t0", "GPU1\tNV4\t X \t0-15\t0-1"));
    EXPECT_NE(why.find("line 3: row GPU1 has '0-1' under NUMA Affinity, not one NUMA node or N/A"),
              std::string::npos)
        << why;
}

TEST(TopoMParser, GpuNumaIdColumnDoesNotReplaceNumaAffinity) {
    const std::string text =
        "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
        "GPU0\t X \tSYS\t0-7\t0\t\t2\n"
        "GPU1\tSYS\t X \t8-15\t1\t\tN/A\n";
    const auto t = parsed_ok(text);
    ASSERT_EQ(t.size(), 2U);
    EXPECT_EQ(t.gpus[0].numa_node, 0);
    EXPECT_EQ(t.gpus[1].numa_node, 1);
}

TEST(TopoMParser, NotAvailableNumaAndCpuAffinityAreUnknownNotZero) {
    const std::string text =
        "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\n"
        "GPU0\t X \tPHB\tN/A\tN/A\n"
        "GPU1\tPHB\t X \t0-11\tN/A\n";
    const auto t = parsed_ok(text);
    EXPECT_FALSE(t.gpus[0].numa_node.has_value());
    EXPECT_EQ(t.gpus[0].cpu_affinity, "");
    EXPECT_FALSE(t.gpus[1].numa_node.has_value());
    EXPECT_EQ(t.gpus[1].cpu_affinity, "0-11");
}

TEST(TopoMParser, NoAffinityColumnsLeaveAffinityUnknown) {
    const auto t = parsed_ok("GPU0 GPU1\nGPU0 X PIX\nGPU1 PIX X\n");
    EXPECT_EQ(*t.label(0, 1), model::LinkLabel::of(model::LinkKind::pix));
    EXPECT_FALSE(t.gpus[0].numa_node.has_value());
    EXPECT_EQ(t.gpus[0].cpu_affinity, "");
}

TEST(TopoMParser, OldDriverSocTokenReadsAsSys) {
    const auto t = parsed_ok("\tGPU0\tGPU1\nGPU0\t X \tSOC\nGPU1\tSOC\t X \n");
    EXPECT_EQ(t.label(0, 1)->kind, model::LinkKind::sys);
}

TEST(TopoMParser, StopsAtTheLegend) {
    const std::string text = std::string(kTwoGpus) + "\nLegend:\n\n  X    = Self\nGPU7\tjunk\n";
    EXPECT_EQ(parsed_ok(text), parsed_ok(kTwoGpus));
    // A legend before any matrix leaves nothing to read.
    EXPECT_NE(error_of(std::string("Legend:\n") + kTwoGpus).find("no header"), std::string::npos);
}

TEST(TopoMParser, PromptAndBannerLinesBeforeTheHeaderAreSkipped) {
    const std::string text = std::string("$ nvidia-smi topo -m\nGPU0 is here\n") + kTwoGpus;
    EXPECT_EQ(parsed_ok(text), parsed_ok(kTwoGpus));
}

TEST(TopoMParser, NegativeOrSignedGpuNumbersAreNotColumns) {
    EXPECT_FALSE(parse_topo_m("\tGPU-1\tGPU0\nGPU-1\t X \tNV4\nGPU0\tNV4\t X \n").has_value());
    EXPECT_FALSE(parse_topo_m("\tGPU+1\tGPU0\n").has_value());
}

TEST(TopoMParser, RowsInAnyOrderFillTheirOwnPositions) {
    const std::string text =
        "\tGPU0\tGPU1\tGPU2\n"
        "GPU2\tSYS\tSYS\t X \n"
        "GPU0\t X \tNV2\tSYS\n"
        "GPU1\tNV2\t X \tSYS\n";
    const auto t = parsed_ok(text);
    EXPECT_EQ(t.nvlink_islands(), (std::vector<std::vector<int>>{{0, 1}, {2}}));
}

TEST(TopoMParser, TruncatedRowNamesTheRowAndIsNeverGuessed) {
    const std::string text =
        "\tGPU0\tGPU1\tGPU2\nGPU0\t X \tNV4\tNV4\nGPU1\tNV4\t X \tNV4\nGPU2\tNV4\n";
    const std::string why = error_of(text);
    EXPECT_NE(why.find("row GPU2 has 1 labels for 3 GPU columns (truncated)"), std::string::npos)
        << why;
}

TEST(TopoMParser, EveryCutOfAGoodMatrixIsEitherTheWholeAnswerOrUnreadable) {
    const std::string text = kTwoGpus;
    const auto whole = parsed_ok(text);
    for (std::size_t cut = 0; cut < text.size(); ++cut) {
        const auto parsed = parse_topo_m(text.substr(0, cut));
        if (parsed) {
            // Only the missing trailing affinity fields may be lost, never a label.
            EXPECT_EQ(parsed->matrix, whole.matrix) << "cut at " << cut;
        }
    }
}

}  // namespace
}  // namespace peergate::sources::smi
