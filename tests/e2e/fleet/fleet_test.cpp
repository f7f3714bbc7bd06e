// SPDX-License-Identifier: Apache-2.0
// peergate fleet end to end: each node's one-line record, and fleet run through a stand-in
// srun (tests/scripts/fake-srun.sh) over simulated nodes, one of them unlike the others.
#include "support/peergate_process.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <string>

namespace peergate::test {
namespace {

namespace fs = std::filesystem;

// An environment whose PATH finds the stand-in srun (as "srun", in a folder of its own).
util::EnvMap with_srun(const std::string& dir) {
    fs::create_directories(dir);
    const auto link = fs::path(dir) / "srun";
    std::error_code ec;
    fs::remove(link, ec);
    fs::create_symlink(script_path("fake-srun.sh"), link);
    auto env = clean_env();
    env.set("PATH", dir + ":/usr/bin:/bin");
    return env;
}

std::string scratch(const std::string& name) {
    return (fs::temp_directory_path() /
            ("peergate-fleet-" + name + "-" + std::to_string(::getpid())))
        .string();
}

TEST(FleetCli, NodePrintsOneJsonLineNamingItself) {
    auto env = clean_env();
    env.set("SLURMD_NODENAME", "gpu-07");
    const auto run =
        run_peergate({"--simulate", "bridged-a100-4x", "fleet", "node", "--one-line"}, env);
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    ASSERT_EQ(std::count(run.process.out.begin(), run.process.out.end(), '\n'), 1);
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["schema"], "peergate.fleet_node/v1");
    EXPECT_EQ(doc["node"], "gpu-07");
    EXPECT_EQ(doc["gpus"].size(), 4U);
    EXPECT_EQ(doc["matrix"][0][1], "NV12");
    EXPECT_EQ(doc["verdict"], "healthy");
    EXPECT_EQ(doc["driver"], "550.127.05");  // the running module's, from /proc
    EXPECT_EQ(doc["kernel"], "5.15.0-125-generic");
    EXPECT_EQ(doc["nics"], nlohmann::ordered_json::array());  // sysfs read: it has none
}

TEST(FleetCli, NodeNamesEachNicWithItsRdmaDevice) {
    const auto run =
        run_peergate({"--simulate", fixture_machine("gdr-acs-4x"), "fleet", "node", "--one-line"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_EQ(stdout_json(run)["nics"], nlohmann::ordered_json::parse(R"([
        {"pci_bus_id": "0000:07:00.0", "rdma_devices": ["mlx5_0"]},
        {"pci_bus_id": "0000:85:00.0", "rdma_devices": ["mlx5_1"]}])"));
}

TEST(FleetCli, ALongRecordComesInPartsThatSrunCannotCut) {
    const auto run = run_peergate({"--simulate", "hgx-b200-8x", "fleet", "node"});
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
    std::size_t lines = 0;
    for (const auto line : util::split_lines(run.process.out)) {
        EXPECT_LE(line.size() + 1, 1024U);  // Slurm's SLURM_IO_MAX_MSG_LEN, the newline included
        EXPECT_THAT(std::string(line),
                    testing::StartsWith("{\"schema\":\"peergate.fleet_node_part/v1\""));
        ++lines;
    }
    EXPECT_GT(lines, 1U);
}

TEST(FleetCli, RunOnLikeNodesIsHealthy) {
    const auto dir = scratch("alike");
    auto env = with_srun(dir);
    env.set("PEERGATE_SIMULATE", "hgx-b200-8x");
    const auto save = dir + "/all.jsonl";
    const auto run = run_peergate({"--json", "fleet", "run", "-N", "3", "--save", save}, env);
    ASSERT_EQ(run.process.exit_code, 0) << run.process.err << run.process.out;
    const auto doc = stdout_json(run);
    EXPECT_EQ(doc["schema"], "peergate.fleet/v1");
    EXPECT_EQ(doc["verdict"], "healthy");
    ASSERT_EQ(doc["nodes"].size(), 3U);
    EXPECT_EQ(doc["nodes"][2]["node"], "node2");
    EXPECT_EQ(doc["majority"]["p2p"], "allowed");
    EXPECT_EQ(doc["majority"]["gpus"], "8");
    // The saved lines merge to the same verdict.
    const auto merged = run_peergate({"fleet", "merge", save, "--nodes", "3"}, clean_env());
    EXPECT_EQ(merged.process.exit_code, 0) << merged.process.out;
    EXPECT_THAT(merged.process.out, testing::HasSubstr("Fleet: 3 nodes answered, 0 failed"));
    fs::remove_all(dir);
}

TEST(FleetCli, ASoakTravelsToEveryNodeAndMustEndBeforeSrunIsStopped) {
    const auto dir = scratch("soak");
    auto env = with_srun(dir);
    env.set("PEERGATE_SIMULATE", "hgx-b200-8x");
    env.set("FAKE_SRUN_ANSWER", "0");  // what srun was asked to run is all this test reads
    env.set("FAKE_SRUN_LOG", dir + "/srun.log");
    run_peergate({"fleet", "run", "-N", "2", "--probe", "--soak", "30"}, env);
    const auto log = util::read_file(dir + "/srun.log");
    ASSERT_TRUE(log.has_value());
    EXPECT_THAT(*log, testing::HasSubstr(" fleet node --probe --soak 30\n"));
    const auto too_long = run_peergate({"fleet", "run", "--probe", "--soak", "900"}, env);
    EXPECT_EQ(too_long.process.exit_code, 2);
    EXPECT_THAT(too_long.process.err,
                testing::HasSubstr("--soak 900 s does not fit in --timeout 900 s"));
    const auto no_probe = run_peergate({"fleet", "run", "--soak", "30"}, env);
    EXPECT_EQ(no_probe.process.exit_code, 2);
    EXPECT_THAT(no_probe.process.err, testing::HasSubstr("--soak requires --probe"));
    fs::remove_all(dir);
}

TEST(FleetCli, TheNodeUnlikeItsPeersFails) {
    const auto dir = scratch("unlike");
    auto env = with_srun(dir);
    env.set("FAKE_SRUN_MACHINES", "hgx-b200-8x,hgx-b200-8x,dgx1-v100");
    const auto run = run_peergate({"fleet", "run", "-N", "3", "--", "--partition=gpu"}, env);
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err << run.process.out;
    EXPECT_THAT(
        run.process.out,
        testing::HasSubstr(
            "fleet_outlier: node2: topology differs from most nodes: GPU0-GPU1 NV1 (fleet: NV18)"));
    EXPECT_THAT(run.process.out,
                testing::HasSubstr(
                    "fleet_outlier: node2: p2p differs from most nodes: vetoed (fleet: allowed)"));
    fs::remove_all(dir);
}

TEST(FleetCli, NodesThatDoNotAnswerAreMissing) {
    const auto dir = scratch("missing");
    auto env = with_srun(dir);
    env.set("PEERGATE_SIMULATE", "hgx-b200-8x");
    env.set("FAKE_SRUN_ANSWER", "2");
    const auto run = run_peergate({"fleet", "run", "-N", "3"}, env);
    EXPECT_EQ(run.process.exit_code, 1);
    EXPECT_THAT(run.process.out, testing::HasSubstr("nodes_missing: 2 of 3 nodes answered"));
    fs::remove_all(dir);
}

TEST(FleetCli, WithoutSrunItSaysWhatToDoInstead) {
    auto env = clean_env();
    env.set("PATH", "/nonexistent-peergate-path");
    const auto run = run_peergate({"fleet", "run"}, env);
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_THAT(run.process.err, testing::HasSubstr("srun is not on PATH"));
    EXPECT_THAT(run.process.err, testing::HasSubstr("peergate fleet merge"));
}

TEST(FleetCli, AnSrunThatRanNothingIsAnError) {
    const auto dir = scratch("broken");
    fs::create_directories(dir);
    const auto srun = dir + "/srun";
    ASSERT_TRUE(util::write_file_atomically(
        srun,
        "#!/bin/sh\necho 'srun: fatal: Could not establish a configuration source' >&2\nexit 1\n"));
    fs::permissions(srun, fs::perms::owner_all);
    auto env = clean_env();
    env.set("PATH", dir + ":/usr/bin:/bin");
    const auto run = run_peergate({"fleet", "run", "-N", "2"}, env);
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_THAT(run.process.err, testing::HasSubstr("srun exited 1 and no node answered"));
    EXPECT_THAT(run.process.err, testing::HasSubstr("Could not establish a configuration source"));
    fs::remove_all(dir);
}

TEST(FleetCli, MergeReadsLabelledLinesAndNamesBadOnes) {
    const auto dir = scratch("merge");
    fs::create_directories(dir);
    auto env = clean_env();
    env.set("SLURMD_NODENAME", "a");
    const auto a = run_peergate({"--simulate", "bridged-a100-4x", "fleet", "node"}, env);
    env.set("SLURMD_NODENAME", "b");
    const auto b = run_peergate({"--simulate", "pcie-rtx6000ada-2x-iommu", "fleet", "node"}, env);
    const auto file = dir + "/lines";
    ASSERT_TRUE(util::write_file_atomically(
        file, "0: " + a.process.out + "1: " + b.process.out + "{\"schema\": 1}\n"));
    const auto run = run_peergate({"--json", "fleet", "merge", file});
    EXPECT_EQ(run.process.exit_code, 1);
    const auto doc = stdout_json(run);
    ASSERT_EQ(doc["nodes"].size(), 2U);
    EXPECT_EQ(doc["nodes"][1]["verdict"], "problems");
    EXPECT_NE(find_finding(doc, "node_problems"), nullptr);
    EXPECT_NE(find_finding(doc, "record_unreadable"), nullptr);
    EXPECT_NE(find_finding(doc, "fleet_split"), nullptr);  // two unlike nodes: no majority
    const auto missing = run_peergate({"fleet", "merge", dir + "/nonexistent"});
    EXPECT_EQ(missing.process.exit_code, 2);
    EXPECT_THAT(missing.process.err, testing::HasSubstr("nonexistent"));
    fs::remove_all(dir);
}

// The cluster page: the outlier marked where it differs, its findings one click away, its
// name escaped (issue 36).
TEST(FleetCli, RunAndMergeWriteTheClusterPage) {
    const auto dir = scratch("html");
    auto env = with_srun(dir);
    env.set("FAKE_SRUN_MACHINES", "hgx-b200-8x,hgx-b200-8x,dgx1-v100");
    const auto page = dir + "/fleet.html";
    const auto save = dir + "/lines";
    const auto run = run_peergate({"fleet", "run", "-N", "3", "--save", save, "--html", page}, env);
    EXPECT_EQ(run.process.exit_code, 1) << run.process.err << run.process.out;
    const auto html = util::read_file(page);
    ASSERT_TRUE(html.has_value());
    EXPECT_TRUE(html->starts_with("<!DOCTYPE html>"));
    EXPECT_THAT(*html, testing::HasSubstr("<title>peergate fleet: problems</title>"));
    EXPECT_THAT(*html, testing::HasSubstr("<a href=\"#node-node2\">node2</a>"));
    EXPECT_THAT(*html, testing::HasSubstr("<h3 id=\"node-node2\">node2</h3>"));
    EXPECT_THAT(*html, testing::HasSubstr("<td class=\"differs\">NV1/NV2/SYS</td>"));
    EXPECT_THAT(*html, testing::Not(testing::HasSubstr("<script")));
    const auto merged = run_peergate({"fleet", "merge", save, "--html", dir + "/merged.html"});
    EXPECT_EQ(merged.process.exit_code, 1);
    const auto nodes_table = [](const std::string& text) {
        const auto from = text.find("<h2>Nodes</h2>");
        return text.substr(from, text.find("<h2>What most") - from);
    };
    EXPECT_EQ(nodes_table(util::read_file(dir + "/merged.html").value()), nodes_table(*html))
        << "the same lines give the same page, but for where each was read";
    const auto unwritable = run_peergate({"fleet", "merge", save, "--html", dir + "/no/such/f"});
    EXPECT_EQ(unwritable.process.exit_code, 2);
    EXPECT_THAT(unwritable.process.err, testing::HasSubstr("--html"));
    fs::remove_all(dir);
}

// Each node's bench result travels in its record; fleet compares the pairs by link class.
TEST(FleetCli, APairSlowerThanItsLinkClassAcrossTheFleetIsAWarning) {
    const auto dir = scratch("bandwidth");
    fs::create_directories(dir);
    const auto bench = run_peergate({"--simulate", "hgx-b200-8x", "bench", "--json"});
    ASSERT_EQ(bench.process.exit_code, 0) << bench.process.err;
    auto slow = stdout_json(bench);
    for (auto& pair : slow["pairs"]) {
        if (pair["src"] == 0 && pair["dst"] == 1) {
            pair["p2p_gbps"] = 100.0;
        }
    }
    ASSERT_TRUE(util::write_file_atomically(dir + "/fast.json", bench.process.out));
    ASSERT_TRUE(util::write_file_atomically(dir + "/slow.json", slow.dump()));
    std::string lines;
    for (const auto& [name, file] : {std::pair{"n1", "fast.json"},
                                     std::pair{"n2", "fast.json"},
                                     std::pair{"n3", "slow.json"}}) {
        const auto run = run_peergate({"--simulate",
                                       "hgx-b200-8x",
                                       "fleet",
                                       "node",
                                       "--node-name",
                                       name,
                                       "--bandwidth",
                                       dir + "/" + file});
        ASSERT_EQ(run.process.exit_code, 0) << run.process.err;
        lines += run.process.out;
    }
    ASSERT_TRUE(util::write_file_atomically(dir + "/lines", lines));
    const auto merged = run_peergate({"--json", "fleet", "merge", dir + "/lines"});
    EXPECT_EQ(merged.process.exit_code, 0) << "a warning, not a failure";
    const auto doc = stdout_json(merged);
    ASSERT_EQ(doc["bandwidth"].size(), 1U) << doc.dump(2);
    EXPECT_EQ(doc["bandwidth"][0]["link"], "NV18");
    EXPECT_EQ(doc["bandwidth"][0]["pairs"], 168);
    EXPECT_EQ(doc["bandwidth"][0]["nodes"], 3);
    const auto* outlier = find_finding(doc, "fleet_bandwidth_outlier");
    ASSERT_NE(outlier, nullptr) << doc.dump(2);
    EXPECT_EQ((*outlier)["nodes"], nlohmann::ordered_json::array({"n3"}));
    EXPECT_THAT((*outlier)["message"].get<std::string>(),
                testing::HasSubstr("GPU0->GPU1 (NV18) 100.0 GB/s"));
    fs::remove_all(dir);
}

}  // namespace
}  // namespace peergate::test
