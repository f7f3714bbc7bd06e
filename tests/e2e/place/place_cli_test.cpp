// SPDX-License-Identifier: Apache-2.0
// `peergate place` end to end: the built binary on saved `nvidia-smi topo -m` texts.
#include "util/subprocess.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <fstream>

namespace {

using Json = nlohmann::ordered_json;

std::string fixture(const std::string& name) {
    return std::string(PEERGATE_TEST_FIXTURES) + "/topo_m/" + name;
}

std::string dgx1() {
    return std::string(PEERGATE_TEST_FIXTURES) + "/place/dgx1_v100_hybrid_cube_mesh.txt";
}

peergate::util::ProcessResult place(std::vector<std::string> args) {
    args.insert(args.begin(), {PEERGATE_BINARY, "place"});
    peergate::util::Command command{.argv = args};
    auto result = peergate::util::run_process(command);
    EXPECT_TRUE(result.has_value());
    return result ? *result : peergate::util::ProcessResult{};
}

Json groups_of(const Json& doc) {
    Json out = Json::array();
    for (const auto& group : doc["groups"]) {
        out.push_back(group["gpus"]);
    }
    return out;
}

TEST(PlaceCli, Dgx1JsonKeepsTheCubeFacesAndNumaNodes) {
    const auto run = place({"--json", "--size", "4", "--from", dgx1()});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const Json doc = Json::parse(run.out);
    EXPECT_EQ(doc.begin().key(), "schema");
    EXPECT_EQ(doc["schema"], "peergate.placement/v1");
    EXPECT_EQ(doc["size"], 4);
    EXPECT_EQ(groups_of(doc), Json::parse("[[0,1,2,3],[4,5,6,7]]"));
    EXPECT_EQ(doc["groups"][0]["bottleneck"], "NV1");
    EXPECT_EQ(doc["groups"][0]["nvlinks"], 1);
    EXPECT_EQ(doc["groups"][0]["numa_nodes"], Json::parse("[0]"));
    EXPECT_EQ(doc["groups"][0]["cuda_visible_devices"], "0,1,2,3");
    EXPECT_EQ(doc["groups"][1]["launch"]["cpu"], "numactl --cpunodebind=1 --membind=1");
    EXPECT_EQ(doc["groups"][1]["cpu_affinity"], "20-39,60-79");
    EXPECT_EQ(doc["leftover"], Json::array());
    EXPECT_EQ(doc["objective"]["min_bottleneck"], 1001);
    EXPECT_EQ(doc["objective"]["exact"], true);
    EXPECT_TRUE(doc["objective"]["open"].is_null()) << "every term proven";
    for (const char* term : {"min_bottleneck", "sum_bottleneck", "sum_pair_weight", "numa_spans"}) {
        EXPECT_EQ(doc["objective"]["bound"][term], doc["objective"][term]) << term;
    }
}

TEST(PlaceCli, BridgedPairsAndTextLaunchLines) {
    const auto run =
        place({"--size", "2", "--for", "vllm", "--from", fixture("unsloth_TOPO_BRIDGED_4X.txt")});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_NE(run.out.find("group 1: GPUs 0,1"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("group 2: GPUs 2,3"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("CUDA_DEVICE_ORDER=PCI_BUS_ID CUDA_VISIBLE_DEVICES=2,3"),
              std::string::npos);
    EXPECT_NE(run.out.find("numactl --cpunodebind=1 --membind=1"), std::string::npos);
    EXPECT_NE(run.out.find("peergate exec --gpus 0,1 --for vllm --bind-cpus --bind-memory -- "),
              std::string::npos);
    EXPECT_NE(run.out.find("NV12 between GPU0 and GPU1"), std::string::npos);
}

TEST(PlaceCli, NvswitchSizeFourIsNumaAligned) {
    const auto run =
        place({"--json", "--size", "4", "--from", fixture("unsloth_TOPO_NVLINK_8X.txt")});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const Json doc = Json::parse(run.out);
    EXPECT_EQ(groups_of(doc), Json::parse("[[0,1,2,3],[4,5,6,7]]"));
    EXPECT_EQ(doc["objective"]["method"], "uniform");
    EXPECT_EQ(doc["objective"]["numa_spans"], 2);
}

TEST(PlaceCli, RequireAndGpus) {
    const auto run =
        place({"--json", "--size", "2", "--gpus", "0,1,2,3", "--require", "3,0", "--from", dgx1()});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const Json doc = Json::parse(run.out);
    EXPECT_EQ(groups_of(doc), Json::parse("[[0,3],[1,2]]"));
    EXPECT_EQ(doc["groups"][0]["required"], true);
}

TEST(PlaceCli, ImpossibleAndUnreadableExitTwoWithAReason) {
    auto run = place({"--size", "4", "--count", "3", "--from", dgx1()});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("impossible"), std::string::npos) << run.err;
    EXPECT_TRUE(run.out.empty());
    run = place({"--size", "2", "--from", fixture("no_such_file.txt")});
    EXPECT_EQ(run.exit_code, 2);
    EXPECT_NE(run.err.find("topology unreadable"), std::string::npos) << run.err;
    run = place({"--size", "2", "--gpus", "0,x", "--from", dgx1()});
    EXPECT_EQ(run.exit_code, 2);
}

TEST(PlaceCli, SimulatedMachinesTakeTheRealPath) {
    auto run = [] {
        peergate::util::Command command{
            .argv = {PEERGATE_BINARY, "--simulate", "dgx1-v100", "place", "--json", "--size", "2"}};
        return *peergate::util::run_process(command);
    }();
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(groups_of(Json::parse(run.out)), Json::parse("[[0,3],[1,2],[4,7],[5,6]]"));
    peergate::util::Command hgx{
        .argv = {PEERGATE_BINARY, "--simulate", "hgx-b200-8x", "place", "--json", "--size", "4"}};
    run = *peergate::util::run_process(hgx);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_EQ(groups_of(Json::parse(run.out)), Json::parse("[[0,1,2,3],[4,5,6,7]]"));
}

// Where each group's network traffic would leave: hgx-b200-8x's ConnectX-7 is on GPU4-5's
// switch (PIX), GPU6-7 reach it across host bridges of node 1 (NODE), GPU0-3 across nodes.
TEST(PlaceCli, EachGroupNamesItsMembersNearestNics) {
    const auto simulated = [](std::vector<std::string> args) {
        args.insert(args.begin(), {PEERGATE_BINARY, "--simulate", "hgx-b200-8x", "place"});
        return *peergate::util::run_process(peergate::util::Command{.argv = args});
    };
    const auto text = simulated({"--size", "2"});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("group 3: GPUs 4,5\n"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("  nics: GPU4 mlx5_0 (PIX), GPU5 mlx5_0 (PIX)\n"), std::string::npos);
    EXPECT_NE(text.out.find("  nics: GPU0 mlx5_0 (SYS), GPU1 mlx5_0 (SYS)\n"), std::string::npos);

    const auto json = simulated({"--json", "--size", "4"});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto doc = Json::parse(json.out);
    EXPECT_EQ(doc["groups"][1]["nearest_nics"][0],
              Json::parse(R"({"gpu": 4, "nics": ["NIC0"], "path": "PIX"})"));
    EXPECT_EQ(doc["groups"][1]["nearest_nics"][3]["path"], "NODE");
    EXPECT_EQ(doc["nics"][0]["rdma_devices"], Json::parse(R"(["mlx5_0", "mlx5_1"])"));
    // A saved file has no sysfs: the NICs are unknown, and the text says nothing of them.
    const auto saved = place({"--json", "--size", "4", "--from", dgx1()});
    const auto saved_doc = Json::parse(saved.out);
    EXPECT_TRUE(saved_doc["nics"].is_null());
    EXPECT_TRUE(saved_doc["groups"][0]["nearest_nics"].is_null());
    EXPECT_EQ(place({"--size", "4", "--from", dgx1()}).out.find("nics:"), std::string::npos);
}

// A saved topo -m with NIC rows and a NIC Legend (sglang issue 30401's 8x H100): the NICs
// come from the text, so each group names its members' nearest NIC by its RDMA device.
TEST(PlaceCli, SavedTopoWithNicRowsNamesEachGroupsNearestNics) {
    const std::string file = fixture("sglang-30401_8xH100_NV18_mlx5x8_nic_legend_gpu_numa_id.txt");
    const auto text = place({"--size", "4", "--from", file});
    ASSERT_EQ(text.exit_code, 0) << text.err;
    EXPECT_NE(text.out.find("group 1: GPUs 0,1,2,3\n"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("  nics: GPU0 mlx5_0 (PIX), GPU1 mlx5_1 (PIX), GPU2 mlx5_2 (PIX), "
                            "GPU3 mlx5_3 (PIX)\n"),
              std::string::npos)
        << text.out;
    EXPECT_NE(text.out.find("  nics: GPU4 mlx5_4 (PIX), GPU5 mlx5_5 (PIX), GPU6 mlx5_6 (PIX), "
                            "GPU7 mlx5_7 (PIX)\n"),
              std::string::npos);

    const auto json = place({"--json", "--size", "2", "--from", file});
    ASSERT_EQ(json.exit_code, 0) << json.err;
    const auto doc = Json::parse(json.out);
    ASSERT_EQ(doc["nics"].size(), 8U);
    EXPECT_TRUE(doc["nics"][5]["pci_bus_id"].is_null()) << "the text names no bus id";
    EXPECT_EQ(doc["nics"][5]["rdma_devices"], Json::parse(R"(["mlx5_5"])"));
    for (const auto& group : doc["groups"]) {
        for (const auto& nearest : group["nearest_nics"]) {
            EXPECT_EQ(nearest["nics"], Json::array({"NIC" + nearest["gpu"].dump()}));
            EXPECT_EQ(nearest["path"], "PIX");
        }
    }
    // Without a NIC Legend the columns keep nvidia-smi's names.
    const auto unnamed = place({"--size", "4", "--from", fixture("unsloth_TOPO_NVLINK_8X.txt")});
    EXPECT_NE(unnamed.out.find("  nics: GPU4 NIC0,NIC1 (PIX), GPU5 NIC0,NIC1 (PIX), GPU6 NIC0,NIC1 "
                               "(NODE), GPU7 NIC0,NIC1 (NODE)\n"),
              std::string::npos)
        << unnamed.out;
}

TEST(PlaceCli, BandwidthFileDecides) {
    const std::string path = std::string(PEERGATE_BUILD_DIR) + "/place_cli_bench.json";
    {
        Json doc{{"schema", "peergate.bench/v1"}, {"pairs", Json::array()}};
        for (int a = 0; a < 4; ++a) {
            for (int b = 0; b < 4; ++b) {
                if (a != b) {
                    const bool fast = (a == 0 && b == 2) || (a == 2 && b == 0) ||
                                      (a == 1 && b == 3) || (a == 3 && b == 1);
                    doc["pairs"].push_back(
                        {{"src", a}, {"dst", b}, {"p2p_gbps", fast ? 80.5 : 12.0}});
                }
            }
        }
        std::ofstream(path) << doc.dump();
    }
    const auto run = place({"--json",
                            "--size",
                            "2",
                            "--bandwidth",
                            path,
                            "--from",
                            fixture("unsloth_TOPO_BRIDGED_4X.txt")});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const Json doc = Json::parse(run.out);
    EXPECT_EQ(groups_of(doc), Json::parse("[[0,2],[1,3]]"));
    EXPECT_EQ(doc["objective"]["weights"], "bandwidth_gbps");
    EXPECT_DOUBLE_EQ(doc["objective"]["min_bottleneck"].get<double>(), 80.5);
    std::remove(path.c_str());
}

}  // namespace
