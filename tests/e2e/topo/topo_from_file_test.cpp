// SPDX-License-Identifier: Apache-2.0
// `peergate topo --from FILE --json` over every real topo -m fixture: the right matrix, the
// peergate.topology/v1 contract of docs/contracts.md, and exit 2 with a reason for every
// cut-off one.
#include "support/fixture_files.hpp"
#include "support/peergate_process.hpp"
#include "support/topo_m_truth.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>

namespace peergate {
namespace {

using Json = nlohmann::ordered_json;
using test::TopoMTruth;

std::vector<std::string> keys_of(const Json& object) {
    std::vector<std::string> keys;
    for (const auto& item : object.items()) {
        keys.push_back(item.key());
    }
    return keys;
}

// docs/contracts.md's fields, in its order, before any field added later.
void expect_contract_keys(const Json& doc) {
    const std::vector<std::string> contract{
        "schema", "readable", "source", "reason", "gpus", "matrix", "nvlink_islands"};
    auto keys = keys_of(doc);
    ASSERT_GE(keys.size(), contract.size());
    keys.resize(contract.size());
    EXPECT_EQ(keys, contract) << "schema first, then the documented fields";
    EXPECT_EQ(doc["schema"], "peergate.topology/v1");
}

// The NICs topo -m printed: null where it printed none (a saved file has no sysfs, so
// unknown), else each column with no bus id, the legend's device, and its paths; the nearest
// NICs worked out here from the truth's labels, closest class first.
void expect_text_nics(const Json& doc, const TopoMTruth& truth) {
    if (truth.nics.empty()) {
        EXPECT_TRUE(doc["nics"].is_null()) << doc["nics"].dump();
        EXPECT_TRUE(doc["nearest_nics"].is_null());
        return;
    }
    ASSERT_EQ(doc["nics"].size(), truth.nics.size()) << doc["nics"].dump();
    for (std::size_t k = 0; k < truth.nics.size(); ++k) {
        const Json& nic = doc["nics"][k];
        EXPECT_EQ(nic["nic"], "NIC" + std::to_string(k));
        EXPECT_TRUE(nic["pci_bus_id"].is_null()) << "topo -m names no bus id";
        EXPECT_TRUE(nic["numa_node"].is_null());
        const auto& device = truth.nics[k].device;
        EXPECT_EQ(nic["rdma_devices"], device.empty() ? Json::array() : Json::array({device}));
        EXPECT_EQ(nic["paths"], Json(truth.nics[k].paths));
    }
    const std::vector<std::string> closest_first{"PIX", "PXB", "PHB", "NODE", "SYS"};
    for (std::size_t p = 0; p < truth.matrix.size(); ++p) {
        const Json& nearest = doc["nearest_nics"][p];
        for (const auto& label : closest_first) {
            Json names = Json::array();
            for (std::size_t k = 0; k < truth.nics.size(); ++k) {
                if (truth.nics[k].paths[p] == label) {
                    names.push_back("NIC" + std::to_string(k));
                }
            }
            if (!names.empty()) {
                EXPECT_EQ(nearest, Json({{"gpu", p}, {"nics", names}, {"path", label}}));
                break;
            }
        }
    }
}

class TopoFromFile : public ::testing::TestWithParam<TopoMTruth> {};

TEST_P(TopoFromFile, PrintsTheTopologyDocument) {
    const TopoMTruth& truth = GetParam();
    const std::string path = test::fixture_path("topo_m", truth.file);
    const auto run = test::run_peergate({"topo", "--from", path, "--json"});
    const Json doc = test::stdout_json(run);
    expect_contract_keys(doc);
    if (!truth.readable) {
        EXPECT_EQ(run.process.exit_code, 2) << run.process.err;
        EXPECT_EQ(doc["readable"], false);
        EXPECT_EQ(doc["source"], "none");
        ASSERT_TRUE(doc["reason"].is_string());
        const std::string reason = doc["reason"];
        EXPECT_NE(reason.find(path), std::string::npos) << reason;
        EXPECT_NE(reason.find(truth.reason_contains), std::string::npos) << reason;
        EXPECT_EQ(doc["gpus"], Json::array());
        EXPECT_EQ(doc["matrix"], Json::array()) << "never a partial matrix";
        EXPECT_EQ(doc["nvlink_islands"], Json::array());
        return;
    }
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_EQ(doc["readable"], true);
    EXPECT_EQ(doc["source"], "file");
    EXPECT_TRUE(doc["reason"].is_null());
    EXPECT_EQ(doc["matrix"], Json(truth.matrix));
    EXPECT_EQ(doc["nvlink_islands"], Json(truth.islands));
    ASSERT_EQ(doc["gpus"].size(), truth.matrix.size());
    for (std::size_t p = 0; p < truth.matrix.size(); ++p) {
        SCOPED_TRACE("gpus[" + std::to_string(p) + "]");
        const Json& gpu = doc["gpus"][p];
        EXPECT_EQ(keys_of(gpu),
                  (std::vector<std::string>{
                      "index", "name", "pci_bus_id", "uuid", "numa_node", "cpu_affinity"}));
        EXPECT_EQ(gpu["index"], p);
        EXPECT_TRUE(gpu["name"].is_null()) << "a saved topo -m has no names: unknown, not empty";
        EXPECT_TRUE(gpu["pci_bus_id"].is_null());
        EXPECT_TRUE(gpu["uuid"].is_null());
        EXPECT_EQ(gpu["numa_node"], truth.numa[p] ? Json(*truth.numa[p]) : Json(nullptr));
        EXPECT_EQ(gpu["cpu_affinity"], truth.cpu_affinity[p]);
    }
    expect_text_nics(doc, truth);
}

INSTANTIATE_TEST_SUITE_P(AllFixtures,
                         TopoFromFile,
                         ::testing::ValuesIn(test::topo_m_truths()),
                         [](const auto& param_info) {
                             std::string name =
                                 param_info.param.file.substr(0, param_info.param.file.size() - 4);
                             std::replace_if(
                                 name.begin(),
                                 name.end(),
                                 [](char c) {
                                     return std::isalnum(static_cast<unsigned char>(c)) == 0;
                                 },
                                 '_');
                             return name;
                         });

TEST(TopoFromFile, MissingFileIsUnreadableWithTheReason) {
    const auto run = test::run_peergate({"topo", "--from", "/nonexistent/topo.txt", "--json"});
    EXPECT_EQ(run.process.exit_code, 2);
    const Json doc = test::stdout_json(run);
    EXPECT_EQ(doc["readable"], false);
    const std::string reason = doc["reason"];
    EXPECT_NE(reason.find("/nonexistent/topo.txt"), std::string::npos) << reason;
    EXPECT_NE(reason.find("No such file or directory"), std::string::npos) << reason;
}

TEST(TopoFromFile, UnreadableTextGoesToStderrWithExitTwo) {
    const auto run = test::run_peergate(
        {"topo", "--from", test::fixture_path("topo_m", "unsloth_ROW_TRUNCATED_8X.txt")});
    EXPECT_EQ(run.process.exit_code, 2);
    EXPECT_EQ(run.process.out, "") << "no matrix, no half a matrix";
    EXPECT_NE(run.process.err.find("unreadable"), std::string::npos) << run.process.err;
    EXPECT_NE(run.process.err.find("missing row for GPU4"), std::string::npos) << run.process.err;
}

// Issue 33: NIC columns named by RDMA device (mlx5_0) instead of NIC<n>. The CPU list and the
// NUMA node are the GPU's, not the first NIC cell ("NODE") and nothing.
TEST(TopoFromFile, DeviceNamedNicColumnsKeepTheCpuAffinityAndNumaNode) {
    const auto run =
        test::run_peergate({"topo",
                            "--from",
                            test::fixture_path("topo_m", "SYSuEST_2xA100_mlx5_numa_nic_row.txt"),
                            "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const Json doc = test::stdout_json(run);
    ASSERT_EQ(doc["gpus"].size(), 2U);
    for (const Json& gpu : doc["gpus"]) {
        EXPECT_EQ(gpu["cpu_affinity"], "32-63");
        EXPECT_EQ(gpu["numa_node"], 1);
    }
    EXPECT_EQ(doc["matrix"], Json(test::uniform_grid(2, "NODE"))) << "no NIC column in the matrix";
}

TEST(TopoFromFile, DeviceNamedNicColumnsOnADgx1ReadEachSocketsCpus) {
    const auto run = test::run_peergate(
        {"topo",
         "--from",
         test::fixture_path("topo_m", "rapidsai-ucx-py_8xV100_DGX1_mlx5_nic_rows.txt"),
         "--json"});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    const Json doc = test::stdout_json(run);
    ASSERT_EQ(doc["gpus"].size(), 8U);
    EXPECT_EQ(doc["gpus"][0]["cpu_affinity"], "0-19,40-59");
    EXPECT_EQ(doc["gpus"][7]["cpu_affinity"], "20-39,60-79");
    EXPECT_TRUE(doc["gpus"][7]["numa_node"].is_null()) << "the header has no NUMA Affinity";
    EXPECT_EQ(doc["nvlink_islands"], Json::parse("[[0,1,2,3,4,5,6,7]]"));
}

TEST(TopoFromFile, GlobalOptionsWorkBeforeTheCommandToo) {
    const auto run = test::run_peergate(
        {"--json", "topo", "--from", test::fixture_path("topo_m", "unsloth_TOPO_PCIE_2X.txt")});
    EXPECT_EQ(run.process.exit_code, 0) << run.process.err;
    EXPECT_EQ(test::stdout_json(run)["matrix"], Json(test::uniform_grid(2, "NODE")));
}

}  // namespace
}  // namespace peergate
