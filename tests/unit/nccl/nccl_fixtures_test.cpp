// SPDX-License-Identifier: Apache-2.0
// Every NCCL log fixture, with what tests/fixtures/README.md says it shows: the version, the
// connection lines by transport and kind, the ranks and how many finished init, the settings,
// the ring, tree and GPU Direct RDMA lines, the hosts and the lines that did not parse.
#include "nccl_log_support.hpp"
#include "support/fixture_files.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cctype>
#include <set>
#include <string>
#include <vector>

namespace peergate::sources::nccl {
namespace {

// P2P, SHM, NET, COLLNET, NVLS: connection lines of each transport, repeats included.
using TransportLines = std::array<std::uint64_t, 5>;

struct NcclTruth {
    std::string file;
    std::string version;          // "" where no line states it
    std::size_t connections = 0;  // distinct connection lines
    TransportLines lines{};
    std::set<std::string> kinds;  // "P2P/CUMEM", "NET/IB/0/GDRDMA"
    std::size_t ranks = 0;
    std::size_t init_complete = 0;
    std::set<std::string> settings;
    std::size_t rings = 0;
    std::size_t trees = 0;
    std::size_t gdr = 0;
    std::size_t hosts = 0;  // named by a connection, rank or tree line
    std::uint64_t skipped = 0;
    std::size_t diagnostics = 0;  // distinct P2P diagnostics lines (NCCL 2.31)
    std::size_t ras = 0;          // distinct RAS lines
};

void PrintTo(const NcclTruth& truth, std::ostream* os) {
    *os << truth.file;
}

// The README's readings, file by file (the hand-written files' scenarios included).
std::vector<NcclTruth> nccl_truths() {
    return {
        {.file = "handwritten-all-shapes.log",
         .connections = 19,
         .lines = {11, 2, 4, 2, 1},
         .kinds = {"COLLNET/SHARP/0/GDRDMA",
                   "COLLNET/SHARP/1",
                   "NET/IB/0(1)/GDRDMA",
                   "NET/IB/0/GDRDMA",
                   "NET/Socket/0",
                   "NVLS/",
                   "P2P/CUMEM",
                   "P2P/CUMEM/read",
                   "P2P/IPC",
                   "P2P/IPC/read",
                   "P2P/direct pointer",
                   "P2P/direct pointer/read",
                   "P2P/indirect/2[2]",
                   "SHM/direct shared memory",
                   "SHM/direct/direct"},
         .hosts = 2},
        {.file = "handwritten-diag-p2p-pass.log",
         .version = "2.31.2+cuda13.0",
         .connections = 3,
         .lines = {3, 0, 0, 0, 0},
         .kinds = {"P2P/CUMEM"},
         .ranks = 3,
         .init_complete = 3,
         .settings = {"NCCL_RUN_DIAGNOSTICS"},
         .hosts = 1,
         .diagnostics = 13},
        {.file = "handwritten-diag-p2p-write-mismatch.log",
         .version = "2.31.2+cuda12.9",
         .connections = 4,
         .lines = {4, 0, 0, 0, 0},
         .kinds = {"P2P/IPC"},
         .ranks = 4,
         .init_complete = 4,
         .settings = {"NCCL_RUN_DIAGNOSTICS"},
         .hosts = 1,
         .diagnostics = 38},
        {.file = "handwritten-ras-dead-process.log",
         .version = "2.31.2+cuda13.0",
         .ranks = 2,
         .init_complete = 1,
         .settings = {"NCCL_DEBUG_SUBSYS"},
         .hosts = 2,
         .ras = 10},
        {.file = "handwritten-malformed.log",
         .connections = 4,
         .lines = {3, 1, 0, 0, 0},
         .kinds = {"P2P/IPC", "P2P/IPC/read", "SHM/direct/direct"},
         .hosts = 1,
         .skipped = 8},
        {.file = "handwritten-nvlink-unused.log",
         .version = "2.21.5+cuda12.4",
         .connections = 6,
         .lines = {0, 6, 0, 0, 0},
         .kinds = {"SHM/direct/direct"},
         .ranks = 4,
         .init_complete = 3,
         .settings = {"NCCL_P2P_DISABLE", "NCCL_SOCKET_IFNAME"},
         .rings = 2,
         .hosts = 1},
        {.file = "nccl-2.1x-busid-gdrdma-707.log",
         .connections = 5,
         .lines = {0, 0, 5, 0, 0},
         .kinds = {"NET/IB/2/GDRDMA", "NET/IB/5/GDRDMA"},
         .hosts = 1},
        {.file = "nccl-2.1x-gdr-no-module-899.log",
         .connections = 7,
         .lines = {0, 0, 11, 0, 0},
         .kinds = {"NET/IB/0"},
         .gdr = 3,
         .hosts = 2},
        {.file = "nccl-2.20.5-socket-8xL20-single-process-1817.log", .version = "2.20.5+cuda12.4"},
        {.file = "nccl-2.21.5-vllm-topology-nvswitch.log", .version = "2.21.5+cuda12.4"},
        {.file = "nccl-2.22.3-init-timings-8xH100-534.log"},
        {.file = "nccl-2.22.3-nvls-multicast-affinity-1538.log"},
        {.file = "nccl-2.22.3-p2p-cumem-8gpu-1538.log",
         .connections = 11,
         .lines = {11, 0, 0, 0, 0},
         .kinds = {"P2P/CUMEM"},
         .hosts = 1},
        {.file = "nccl-2.23.4-collnet-sharp.log",
         .version = "2.23.4+cuda12.4",
         .connections = 4,
         .lines = {0, 0, 0, 4, 0},
         .kinds = {"COLLNET/SHARP/0/GDRDMA", "COLLNET/SHARP/1/GDRDMA", "COLLNET/SHARP/5/GDRDMA"},
         .ranks = 2,
         .settings = {"NCCL_COLLNET_ENABLE"},
         .rings = 2,
         .trees = 3,
         .hosts = 4},
        {.file = "nccl-2.24.3-nvls-sharp-collnet-plugin-env-1584.log",
         .version = "2.24.3+cuda12.2",
         .ranks = 1,
         .settings = {"NCCL_IB_PCI_RELAXED_ORDERING", "NCCL_SOCKET_IFNAME"}},  // no host prefix
        {.file = "nccl-2.25.1-socket-no-ib-device-1637.log", .version = "2.25.1+cuda12.2"},
        {.file = "nccl-2.27-mpirun-prefix-2hosts-proxy-1713.log", .trees = 8, .hosts = 1},
        {.file = "nccl-2.2x-aws-timestamps-cumem-read.log",
         .connections = 6,
         .lines = {6, 0, 0, 0, 0},
         .kinds = {"P2P/CUMEM/read"},
         .hosts = 1},
        {.file = "nccl-2.2x-direct-pointer-read-ib.log",
         .connections = 14,
         .lines = {10, 0, 4, 0, 0},
         .kinds = {"NET/IB/3", "P2P/direct pointer/read"},
         .hosts = 1},
        {.file = "nccl-2.2x-direct-pointer.log",
         .connections = 9,
         .lines = {9, 0, 0, 0, 0},
         .kinds = {"P2P/direct pointer"},
         .hosts = 1},
        {.file = "nccl-2.2x-gdr-disabled-roce-1537.log", .ranks = 1, .gdr = 2, .hosts = 1},
        {.file = "nccl-2.2x-h20-cumem-gdrdma-nvswitch.log",
         .connections = 14,
         .lines = {5, 0, 9, 0, 0},
         .kinds = {"NET/IB/2/GDRDMA", "NET/IB/3/GDRDMA", "P2P/CUMEM"},
         .settings = {"NCCL_PXN_DISABLE"},
         .trees = 4,
         .hosts = 2},
        {.file = "nccl-2.2x-nvls-ibext-cumem.log",
         .connections = 10,
         .lines = {5, 0, 5, 0, 0},
         .kinds =
             {"NET/IBext_v8/1", "NET/IBext_v8/2", "NET/IBext_v8/3", "NET/IBext_v8/7", "P2P/CUMEM"},
         .ranks = 4,
         .init_complete = 4,
         .settings = {"NCCL_IB_GID_INDEX"},
         .hosts = 1},
        {.file = "nccl-2.2x-python-logging-prefix.log", .rings = 1, .hosts = 0},
        {.file = "nccl-2.2x-topology-nvl-mesh.log", .ranks = 1, .hosts = 1},
        {.file = "nccl-2.4-ring-p2p-ipc-tests29.log",
         .connections = 4,
         .lines = {4, 0, 0, 0, 0},
         .kinds = {"P2P/IPC"},
         .hosts = 3},
        {.file = "nccl-2.4-ring-socket-no-dev-226.log",
         .connections = 3,
         .lines = {0, 0, 3, 0, 0},
         .kinds = {"NET/Socket/0"},
         .hosts = 3},
        {.file = "nccl-2.5.6-mpirun-prefix.log", .version = "2.5.6+cuda10.2"},
        {.file = "nccl-2.7-ring-busid-385.log",
         .connections = 11,
         .lines = {9, 0, 2, 0, 0},
         .kinds = {"NET/IB/1/GDRDMA", "P2P/IPC"}},  // "[4] NCCL INFO": no host
        {.file = "nccl-2.8-init-complete-no-nvmldev.log",
         .ranks = 8,
         .init_complete = 8,
         .hosts = 2},
        {.file = "nccl-2.9.9-ec2-p2p-ipc-read.log",
         .connections = 13,
         .lines = {13, 0, 0, 0, 0},
         .kinds = {"P2P/IPC/read"},
         .hosts = 2},
        {.file = "nccl-2.x-direct-shared-memory-2080ti.log",
         .connections = 2,
         .lines = {0, 2, 0, 0, 0},
         .kinds = {"SHM/direct shared memory"},
         .ranks = 1,
         .init_complete = 1,
         .rings = 2,
         .trees = 4},  // no prefix at all
        {.file = "nccl-2.x-shm-socket.log",
         .connections = 15,
         .lines = {0, 7, 8, 0, 0},
         .kinds = {"NET/Socket/0", "SHM/direct/direct"},
         .hosts = 1},
        {.file = "rccl-p2p-level-xgmi.log", .settings = {"NCCL_P2P_LEVEL"}, .trees = 4, .hosts = 1},
    };
}

std::size_t transport_index(model::NcclTransport transport) {
    return static_cast<std::size_t>(transport);
}

std::set<std::string> hosts_of(const model::NcclLog& log) {
    std::set<std::string> hosts;
    for (const auto& c : log.connections) {
        hosts.insert(c.host);
    }
    for (const auto& r : log.ranks) {
        hosts.insert(r.host);
    }
    for (const auto& t : log.trees) {
        hosts.insert(t.host);
    }
    hosts.erase("");
    return hosts;
}

void expect_log(const model::NcclLog& log, const NcclTruth& truth) {
    EXPECT_EQ(log.nccl_version, truth.version);
    EXPECT_EQ(log.connections.size(), truth.connections);
    TransportLines lines{};
    std::set<std::string> kinds;
    for (const auto& c : log.connections) {
        lines[transport_index(c.transport)] += c.count;
        kinds.insert(std::string(model::to_string(c.transport)) + "/" + c.detail);
    }
    EXPECT_EQ(lines, truth.lines);
    EXPECT_EQ(kinds, truth.kinds);
    EXPECT_EQ(log.ranks.size(), truth.ranks);
    std::size_t complete = 0;
    for (const auto& r : log.ranks) {
        complete += r.init_complete ? 1U : 0U;
    }
    EXPECT_EQ(complete, truth.init_complete);
    std::set<std::string> settings;
    for (const auto& [name, value] : log.settings) {
        settings.insert(name);
    }
    EXPECT_EQ(settings, truth.settings);
    EXPECT_EQ(log.rings.size(), truth.rings);
    EXPECT_EQ(log.trees.size(), truth.trees);
    EXPECT_EQ(log.gdr.size(), truth.gdr);
    EXPECT_EQ(hosts_of(log).size(), truth.hosts);
    EXPECT_EQ(log.counts.skipped, truth.skipped);
    EXPECT_EQ(log.diagnostics.size(), truth.diagnostics);
    EXPECT_EQ(log.ras.size(), truth.ras);
}

class NcclFixtures : public testing::TestWithParam<NcclTruth> {};

TEST_P(NcclFixtures, ReadsWhatTheReadmeSaysTheLogShows) {
    const auto& truth = GetParam();
    expect_log(test::parse_nccl_log(test::read_fixture("nccl", truth.file)), truth);
}

INSTANTIATE_TEST_SUITE_P(
    EveryFile, NcclFixtures, testing::ValuesIn(nccl_truths()), [](const auto& param_info) {
        return test::fixture_test_name(param_info.param.file, param_info.index);
    });

TEST(NcclFixturesTable, EveryLogInTheFixtureFolderHasATruthEntry) {
    std::set<std::string> covered;
    for (const auto& truth : nccl_truths()) {
        covered.insert(truth.file);
    }
    for (const auto& name : test::fixture_names("nccl")) {
        if (name.ends_with(".log")) {
            EXPECT_EQ(covered.count(name), 1U) << name << " has no entry in this table";
        }
    }
}

}  // namespace
}  // namespace peergate::sources::nccl
