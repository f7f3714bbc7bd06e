// SPDX-License-Identifier: Apache-2.0
// peergate export end to end on simulated machines: the real tools of each ecosystem judge the
// output where they are installed (promtool, Graphviz), files are replaced whole, and the
// DGX-1 cube mesh gives the gres.conf Links that docs/ecosystem.md §3.1 checked with slurmd.
#include "support/peergate_process.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <iterator>
#include <string>

namespace peergate::test {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
    const auto dir =
        fs::temp_directory_path() / ("peergate-export-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// `tool` judging `input` (written to a file that `command` names as "$1", run by sh so
// that tools reading stdin can be given it): its exit status, or -1 when it is not installed.
int judge(const std::string& tool, const std::string& command, const std::string& input) {
    if (!fs::exists(tool)) {
        return -1;
    }
    const auto dir = scratch("judge");
    const auto file = (dir / "input").string();
    EXPECT_TRUE(util::write_file_atomically(file, input).has_value());
    util::Command run;
    run.argv = {"/bin/sh", "-c", tool + " " + command, "sh", file};
    run.env = clean_env();
    run.timeout = std::chrono::seconds(60);
    const auto result = util::run_process(run);
    fs::remove_all(dir);
    EXPECT_TRUE(result.has_value());
    if (result && result->exit_code != 0) {
        ADD_FAILURE() << tool << " said:\n" << result->out << result->err << "\nof:\n" << input;
    }
    return result ? result->exit_code : -1;
}

TEST(ExportCli, DgxOneCubeMeshGivesTheLinksSlurmdAccepted) {
    const auto run = run_peergate({"--simulate",
                                   "dgx1-v100",
                                   "export",
                                   "gres",
                                   "--node-name",
                                   "dgx1",
                                   "--gres-type",
                                   "v100"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    // docs/ecosystem.md §3.1's lines, which slurmd -G parsed; Cores= are the logical cores of the
    // two 20-core Xeons the machine file lays out.
    const std::vector<std::string> links = {"-1,1,1,2,2,0,0,0",
                                            "1,-1,2,1,0,2,0,0",
                                            "1,2,-1,2,0,0,1,0",
                                            "2,1,2,-1,0,0,0,1",
                                            "2,0,0,0,-1,1,1,2",
                                            "0,2,0,0,1,-1,2,1",
                                            "0,0,1,0,1,2,-1,2",
                                            "0,0,0,1,2,1,2,-1"};
    for (std::size_t i = 0; i < links.size(); ++i) {
        EXPECT_THAT(
            run.process.out,
            testing::HasSubstr("NodeName=dgx1 AutoDetect=off Name=gpu Type=v100 File=/dev/nvidia" +
                               std::to_string(i) + (i < 4 ? " Cores=0-19" : " Cores=20-39") +
                               " Links=" + links[i] + "\n"));
    }
    EXPECT_THAT(run.process.out, testing::HasSubstr("Gres=gpu:v100:8\n"));
}

TEST(ExportCli, NodeNameComesFromSlurmd) {
    auto env = clean_env();
    env.set("SLURMD_NODENAME", "n7");
    const auto run = run_peergate({"--simulate", "bridged-a100-4x", "export", "gres"}, env);
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_THAT(run.process.out, testing::HasSubstr("\nNodeName=n7 AutoDetect=off Name=gpu"));
}

TEST(ExportCli, PromtoolFindsNothingToSay) {
    // A probe of 8 GPUs' 56 pairs takes a minute on the simulator: the 2-GPU machine probes.
    const std::vector<std::vector<std::string>> runs = {
        {"--simulate", "hgx-b200-8x", "export", "prometheus"},
        {"--simulate", "pcie-rtx6000ada-2x-iommu", "export", "prometheus", "--probe"},
        {"--simulate", "single-h200", "export", "prometheus"},
        {"--simulate", fixture_machine("gdr-acs-4x"), "export", "prometheus"}};
    for (const auto& args : runs) {
        SCOPED_TRACE(args[1]);
        const auto run = run_peergate(args);
        ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
        if (judge("/usr/bin/promtool", "check metrics < \"$1\"", run.process.out) < 0) {
            GTEST_SKIP() << "promtool is not installed (Debian package prometheus)";
        }
    }
}

// The NICs as the simulated sysfs places them (gdr-acs-4x: one ConnectX per PCIe switch).
TEST(ExportCli, TheTextfileNamesEachNicAndEachGpusNearest) {
    const auto run =
        run_peergate({"--simulate", fixture_machine("gdr-acs-4x"), "export", "prometheus"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto& out = run.process.out;
    EXPECT_THAT(out,
                testing::HasSubstr("peergate_nic_info{nic=\"0000:85:00.0\",rdma_device=\"mlx5_1\","
                                   "interface=\"ibp133s0\",numa_node=\"1\"} 1\n"));
    EXPECT_THAT(out,
                testing::HasSubstr("peergate_gpu_nearest_nic_info{gpu=\"3\",nic=\"0000:85:00.0\","
                                   "rdma_device=\"mlx5_1\",path=\"PIX\"} 1\n"));
}

// A node of one GPU has no pair to ask the CUDA driver about, but its version is still read.
TEST(ExportCli, ALoneGpusNodeNamesItsCudaVersion) {
    const auto run = run_peergate({"--simulate", "single-h200", "export", "prometheus"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_THAT(run.process.out,
                testing::ContainsRegex("peergate_info\\{version=\"[^\"]+\",driver_version="
                                       "\"[^\"]+\",cuda_version=\"12.8\"\\} 1\n"));
}

TEST(ExportCli, ASoakNeedsTheProbe) {
    const auto run = run_peergate(
        {"--simulate", "pcie-rtx6000ada-2x-iommu", "export", "prometheus", "--soak", "60"});
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_THAT(run.process.err, testing::HasSubstr("--soak requires --probe"));
    EXPECT_TRUE(run.process.out.empty()) << run.process.out;
}

TEST(ExportCli, TheSilentDropHostShowsItsLostCopies) {
    const auto run =
        run_peergate({"--simulate", "pcie-rtx6000ada-2x-iommu", "export", "prometheus", "--probe"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_THAT(run.process.out, testing::HasSubstr("peergate_p2p_allowed 0\n"));
    EXPECT_THAT(run.process.out,
                testing::HasSubstr("peergate_doctor_verdict{verdict=\"problems\"} 1\n"));
    EXPECT_THAT(run.process.out,
                testing::ContainsRegex("peergate_info\\{version=\"[^\"]+\",driver_version="
                                       "\"570.86.15\",cuda_version=\"12.8\"\\} 1\n"));
    EXPECT_THAT(run.process.out,
                testing::HasSubstr("peergate_doctor_finding{code=\"dmar_fault_gpu\",severity="
                                   "\"error\"} 1\n"));
    EXPECT_THAT(
        run.process.out,
        testing::HasSubstr(
            "peergate_p2p_status{gpu=\"0\",peer_gpu=\"1\",caps=\"read\",link_status=\"OK\"} 0\n"));
    EXPECT_THAT(run.process.out,
                testing::ContainsRegex(
                    "peergate_p2p_integrity_errors_total\\{gpu=\"0\",peer_gpu=\"1\"\\} [1-9]"));
    const auto nfd =
        run_peergate({"--simulate", "pcie-rtx6000ada-2x-iommu", "export", "nfd", "--probe"});
    EXPECT_THAT(nfd.process.out,
                testing::HasSubstr("peergate.feature.node.kubernetes.io/p2p.integrity=fail\n"));
    EXPECT_THAT(nfd.process.out,
                testing::HasSubstr("peergate.feature.node.kubernetes.io/iommu=translating\n"));
}

TEST(ExportCli, GraphvizReadsTheDrawing) {
    for (const auto& machine : {std::string("dgx1-v100"),
                                std::string("bridged-a100-4x"),
                                std::string("single-h200"),
                                fixture_machine("gdr-acs-4x")}) {
        SCOPED_TRACE(machine);
        const auto run = run_peergate({"--simulate", machine, "export", "dot"});
        ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
        EXPECT_THAT(run.process.out, testing::StartsWith("graph peergate {"));
        if (judge("/usr/bin/dot", "-Tcanon \"$1\" -o /dev/null", run.process.out) < 0) {
            GTEST_SKIP() << "Graphviz is not installed (Debian package graphviz)";
        }
    }
}

// Each NIC in its NUMA node's box, joined to the GPUs below its PCIe switch (gdr-acs-4x: one
// ConnectX per switch), where GPUDirect RDMA's short path is.
TEST(ExportCli, TheDrawingJoinsEachNicToTheGpusOnItsSwitch) {
    const auto run = run_peergate({"--simulate", fixture_machine("gdr-acs-4x"), "export", "dot"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto& out = run.process.out;
    EXPECT_THAT(out,
                testing::HasSubstr("    nic0 [label=\"mlx5_0\\n0000:07:00.0\", shape=ellipse];\n"
                                   "  }\n  subgraph cluster_numa1 {"));
    EXPECT_THAT(out,
                testing::HasSubstr("  gpu0 -- nic0 [label=\"PIX\", style=dotted, color=blue];\n"
                                   "  gpu1 -- nic0 [label=\"PIX\", style=dotted, color=blue];\n"
                                   "  gpu2 -- nic1 [label=\"PIX\", style=dotted, color=blue];\n"
                                   "  gpu3 -- nic1 [label=\"PIX\", style=dotted, color=blue];\n"));
    EXPECT_THAT(out, testing::HasSubstr("blue dots: a NIC on the GPU's PCIe switch"));  // legend
    EXPECT_THAT(out, testing::Not(testing::HasSubstr("gpu0 -- nic1")));
}

// A dual-port card (hgx-b200-8x's ConnectX-7) is one ellipse named by both ports.
TEST(ExportCli, TheDrawingNamesBothPortsOfACard) {
    const auto run = run_peergate({"--simulate", "hgx-b200-8x", "export", "dot"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_THAT(
        run.process.out,
        testing::HasSubstr("    nic0 [label=\"mlx5_0,mlx5_1\\n0000:ac:00.0\", shape=ellipse];\n"));
    EXPECT_THAT(run.process.out,
                testing::HasSubstr("  gpu5 -- nic0 [label=\"PIX\", style=dotted, color=blue];\n"));
}

TEST(ExportCli, OutputIsReplacedWholeAndKeepsTheLastSuccess) {
    const auto dir = scratch("output");
    const auto file = (dir / "peergate.prom").string();
    auto run =
        run_peergate({"--simulate", "hgx-b200-8x", "export", "prometheus", "--output", file});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_EQ(run.process.out, "");
    const auto healthy = util::read_file(file);
    ASSERT_TRUE(healthy.has_value());
    EXPECT_THAT(*healthy, testing::HasSubstr("peergate_doctor_verdict{verdict=\"healthy\"} 1\n"));
    const auto success_line =
        healthy->substr(healthy->find("peergate_last_success_timestamp_seconds "));
    const std::string success(success_line.substr(0, success_line.find('\n')));
    EXPECT_THAT(success, testing::Not(testing::EndsWith(" 0")));

    run = run_peergate(
        {"--simulate", "pcie-rtx6000ada-2x-iommu", "export", "prometheus", "--output", file});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    const auto unhealthy = util::read_file(file);
    ASSERT_TRUE(unhealthy.has_value());
    EXPECT_THAT(*unhealthy,
                testing::HasSubstr("peergate_doctor_verdict{verdict=\"problems\"} 1\n"));
    EXPECT_THAT(*unhealthy, testing::HasSubstr(success + "\n"));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
    fs::remove_all(dir);
}

TEST(ExportCli, AnUnwritableOutputLeavesTheOldFile) {
    const auto dir = scratch("keep");
    const auto blocked = dir / "labels";
    fs::create_directories(blocked / "inside");
    const auto run =
        run_peergate({"--simulate", "hgx-b200-8x", "export", "nfd", "--output", blocked.string()});
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_THAT(run.process.err, testing::HasSubstr("--output: "));
    EXPECT_TRUE(fs::is_directory(blocked / "inside"));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1);
    fs::remove_all(dir);
}

TEST(ExportCli, OneReadOfTheHostWritesEveryFormatAsked) {
    const auto dir = scratch("also");
    const auto at = [&](const std::string& name) { return (dir / name).string(); };
    const auto run = run_peergate({"--simulate",
                                   "pcie-rtx6000ada-2x-iommu",
                                   "export",
                                   "prometheus",
                                   "--probe",
                                   "--also",
                                   "nfd=" + at("labels"),
                                   "--also",
                                   "gres=" + at("gres.conf"),
                                   "--also",
                                   "dot=" + at("t.dot")});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_THAT(run.process.out,
                testing::ContainsRegex(
                    "peergate_p2p_integrity_errors_total\\{gpu=\"0\",peer_gpu=\"1\"\\} [1-9]"));
    EXPECT_THAT(util::read_file(at("labels")).value_or(""),
                testing::HasSubstr("peergate.feature.node.kubernetes.io/p2p.integrity=fail\n"));
    EXPECT_THAT(util::read_file(at("gres.conf")).value_or(""), testing::HasSubstr("Links=-1,0\n"));
    EXPECT_THAT(util::read_file(at("t.dot")).value_or(""), testing::HasSubstr("data lost"));
    fs::remove_all(dir);
}

// All or nothing (issue 34): labels written beside a gres.conf that could not be would say
// one thing to Kubernetes and nothing to Slurm.
TEST(ExportCli, AWrongOrFailingAlsoWritesNothing) {
    const auto dir = scratch("also-bad");
    const auto labels_and_also = [&](const std::string& also) {
        return run_peergate({"--simulate",
                             "hgx-b200-8x",
                             "export",
                             "nfd",
                             "--output",
                             (dir / "labels").string(),
                             "--also",
                             also});
    };
    auto run = labels_and_also("svg=x");
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_THAT(run.process.err, testing::HasSubstr("--also svg=x: expected FORMAT=FILE"));
    EXPECT_FALSE(fs::exists(dir / "labels"));
    run = labels_and_also("gres=/nonexistent-peergate/gres.conf");
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_THAT(run.process.err, testing::HasSubstr("--also gres: "));
    EXPECT_FALSE(fs::exists(dir / "labels"));
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 0)
        << "no temporary left behind";
    fs::remove_all(dir);
}

TEST(ExportCli, NoGpuStillExportsTheVerdictButNothingToDraw) {
    const auto prom = run_peergate({"export", "prometheus"});
    EXPECT_EQ(prom.process.exit_code, 0) << prom.process.err;
    EXPECT_THAT(prom.process.out,
                testing::HasSubstr("peergate_doctor_verdict{verdict=\"inconclusive\"} 1\n"));
    const auto gres = run_peergate({"export", "gres"});
    EXPECT_EQ(gres.process.exit_code, 2);
    EXPECT_THAT(gres.process.err, testing::HasSubstr("export gres: no GPU topology"));
    EXPECT_THAT(gres.process.err, testing::HasSubstr("NVML library: "));  // why, not "()"
    EXPECT_EQ(gres.process.out, "");
}

TEST(ExportCli, UsageErrorsSayWhatWasWrong) {
    auto run = run_peergate({"--simulate", "hgx-b200-8x", "export", "nccl-topo-xml"});
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_THAT(run.process.err, testing::HasSubstr("nccl-topo-xml"));
    run = run_peergate({"--simulate", "hgx-b200-8x", "export", "nfd", "--gpus", "9"});
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_THAT(run.process.err, testing::HasSubstr("GPU 9 is not on this host"));
    run = run_peergate({"--simulate", "hgx-b200-8x", "export"});
    EXPECT_EQ(run.process.exit_code, 2);
}

}  // namespace
}  // namespace peergate::test
