// SPDX-License-Identifier: Apache-2.0
// One topology reader and one --gpus grammar for place: what `topo --json` prints is a saved
// topology `place --from` reads (it was refused before), and an empty or repeated list is a
// usage error as it is for the gate (both were taken as "every GPU" before).
#include "util/atomic_file.hpp"
#include "util/subprocess.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

namespace {

peergate::util::ProcessResult peergate_run(std::vector<std::string> args) {
    args.insert(args.begin(), PEERGATE_BINARY);
    auto result = peergate::util::run_process(peergate::util::Command{.argv = args});
    EXPECT_TRUE(result.has_value());
    return result ? *result : peergate::util::ProcessResult{};
}

TEST(PlaceOneReader, ReadsTheTopologyDocumentTopoJsonPrints) {
    const auto topo = peergate_run({"--simulate", "bridged-a100-4x", "topo", "--json"});
    ASSERT_EQ(topo.exit_code, 0) << topo.err;
    const std::string path = std::string(PEERGATE_BUILD_DIR) + "/place-one-reader-" +
                             std::to_string(::getpid()) + ".json";
    ASSERT_TRUE(static_cast<bool>(peergate::util::write_file_atomically(path, topo.out)));
    const auto placed = peergate_run({"place", "--size", "2", "--from", path});
    std::remove(path.c_str());
    EXPECT_EQ(placed.exit_code, 0) << placed.err;
    EXPECT_NE(placed.out.find("0,1"), std::string::npos) << placed.out;
    EXPECT_NE(placed.out.find("2,3"), std::string::npos) << placed.out;
    // The document's NUMA nodes come through: each group is bound to its own node.
    EXPECT_NE(placed.out.find("numactl --cpunodebind=1 --membind=1"), std::string::npos)
        << placed.out;
}

TEST(PlaceOneReader, AnEmptyOrRepeatedListIsAUsageErrorAsForTheGate) {
    const auto empty =
        peergate_run({"--simulate", "bridged-a100-4x", "place", "--size", "2", "--gpus", ""});
    EXPECT_EQ(empty.exit_code, 2);
    EXPECT_NE(empty.err.find("--gpus is empty"), std::string::npos) << empty.err;
    const auto twice = peergate_run({"--simulate", "bridged-a100-4x", "probe", "--gpus", "1,1"});
    EXPECT_EQ(twice.exit_code, 2);
    EXPECT_NE(twice.err.find("GPU 1 is listed twice"), std::string::npos) << twice.err;
}

}  // namespace
