// SPDX-License-Identifier: Apache-2.0
// The real `nvidia-smi topo -p2p` fixtures. peergate reads P2P status from NVML itself, not
// from this text; what it must do with a paste of it is refuse it as `topo -m` input, naming
// the first status token (the GPU0 to GPU1 reading of tests/fixtures/README.md) and saying
// which command to run instead, never read a status as a link.
#include "sources/smi/topo_m_parser.hpp"
#include "support/fixture_files.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace peergate::sources::smi {
namespace {

// Each file, and what its first GPU row says of GPU0 to GPU1 (the README's reading).
const std::map<std::string, std::string>& first_status() {
    static const std::map<std::string, std::string> truths{
        {"aikitoria-ogkm-13_5xGPU_p2p_p_all_OK_excerpt_cut.txt", "OK"},
        {"club-3090-1125_2xRTX3090_p2p_NS_indented.txt", "NS"},
        {"club-3090-1130_2xRTX5090_p2p_rw_GNS_spaces.txt", "GNS"},
        {"club-3090-1229_2xRTX5090_p2p_rw_GNS_tabs.txt", "GNS"},
        {"club-3090-1360_2xGPU_p2p_rw_OK_tabs.txt", "OK"},
        {"ml-engineering-debug_2xL4_p2p_r_CNS.txt", "CNS"},
        {"ml-engineering-debug_8xH100_p2p_r_all_OK.txt", "OK"},
    };
    return truths;
}

TEST(TopoP2pFixtures, EachIsRefusedAsTopoMNamingItsFirstStatusAndTheRightCommand) {
    for (const auto& [file, status] : first_status()) {
        SCOPED_TRACE(file);
        const auto topology = parse_topo_m(test::read_fixture("topo_p2p", file));
        ASSERT_FALSE(topology.has_value());
        const auto& message = topology.error().message;
        EXPECT_NE(message.find("GPU0 to GPU1 is '" + status + "'"), std::string::npos) << message;
        EXPECT_NE(message.find("this is 'nvidia-smi topo -p2p' output"), std::string::npos)
            << message;
    }
}

TEST(TopoP2pFixtures, AnUnknownTokenIsNotCalledAP2pStatus) {
    const auto topology = parse_topo_m("\tGPU0\tGPU1\nGPU0\t X \tZZ\nGPU1\tZZ\t X \n");
    ASSERT_FALSE(topology.has_value());
    EXPECT_EQ(topology.error().message.find("topo -p2p"), std::string::npos);
}

TEST(TopoP2pFixtures, EveryFileInTheFixtureFolderHasAnEntry) {
    for (const auto& name : test::fixture_names("topo_p2p")) {
        EXPECT_EQ(first_status().count(name), 1U) << name << " has no entry in this table";
    }
}

}  // namespace
}  // namespace peergate::sources::smi
