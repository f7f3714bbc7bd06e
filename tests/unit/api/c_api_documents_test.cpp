// SPDX-License-Identifier: Apache-2.0
// peergate_topology_json and peergate_place_json: the topology and placement documents the
// Python package (python/peergate) reads, with peergate_gate_json's buffer conventions.
#include "envp.hpp"
#include "peergate/peergate_c.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace {

using DocumentsEnvp = peergate::test::Envp;

DocumentsEnvp simulated(const std::string& machine) {
    return DocumentsEnvp({"PATH=/usr/bin:/bin", "PEERGATE_SIMULATE=" + machine});
}

TEST(CApiDocuments, TheTopologyDocumentIsTopoJson) {
    const auto env = simulated("bridged-a100-4x");
    std::string out(1 << 18, '\0');
    ASSERT_EQ(peergate_topology_json(env.pointers.data(), out.data(), out.size()), 0);
    const auto doc = nlohmann::json::parse(out.c_str());
    EXPECT_EQ(doc["schema"], "peergate.topology/v1");
    EXPECT_EQ(doc["gpus"].size(), 4U);
    EXPECT_EQ(doc["nvlink_islands"], nlohmann::json::parse("[[0, 1], [2, 3]]")) << doc.dump(2);
    EXPECT_TRUE(doc.contains("nics")) << "a simulated host has a sysfs: NICs are read";
}

TEST(CApiDocuments, AnUnreadableTopologyIsStatusTwoWithTheReason) {
    const DocumentsEnvp env({"PATH=/usr/bin:/bin",
                             "PEERGATE_NVML_LIB=/nonexistent/libnvidia-ml.so.1",
                             "PEERGATE_NVIDIA_SMI=/nonexistent/nvidia-smi"});
    std::string out(1 << 16, '\0');
    ASSERT_EQ(peergate_topology_json(env.pointers.data(), out.data(), out.size()), 2);
    const auto doc = nlohmann::json::parse(out.c_str());
    EXPECT_EQ(doc["readable"], false);
    EXPECT_NE(doc["reason"].get<std::string>().find("nvidia-smi"), std::string::npos)
        << doc.dump(2);
}

TEST(CApiDocuments, ABadSimulatedMachineIsAnError) {
    const auto env = simulated("no-such-machine");
    std::string out(1 << 16, '\0');
    ASSERT_EQ(peergate_topology_json(env.pointers.data(), out.data(), out.size()), 2);
    const auto doc = nlohmann::json::parse(out.c_str());
    EXPECT_EQ(doc["schema"], "peergate.topology/v1");
    EXPECT_NE(doc["error"].get<std::string>().find("no-such-machine"), std::string::npos)
        << doc.dump(2);
}

TEST(CApiDocuments, PlacesTheBestGroupsAsPlaceDoes) {
    const auto env = simulated("bridged-a100-4x");
    std::string out(1 << 18, '\0');
    ASSERT_EQ(
        peergate_place_json(env.pointers.data(), nullptr, 2, 0, nullptr, out.data(), out.size()),
        0);
    const auto doc = nlohmann::json::parse(out.c_str());
    EXPECT_EQ(doc["schema"], "peergate.placement/v1");
    ASSERT_EQ(doc["groups"].size(), 2U) << doc.dump(2);
    EXPECT_EQ(doc["groups"][0]["gpus"], nlohmann::json::parse("[0, 1]")) << doc.dump(2);
    EXPECT_EQ(doc["groups"][1]["gpus"], nlohmann::json::parse("[2, 3]")) << doc.dump(2);
}

TEST(CApiDocuments, APlacementThatCannotBeMadeSaysWhy) {
    const auto env = simulated("bridged-a100-4x");
    std::string out(1 << 16, '\0');
    for (const auto& [gpus, size, count] : std::vector<std::tuple<const char*, int, int>>{
             {"0,1", 3, 1}, {"0,9", 2, 1}, {"all", 0, 1}, {"all", 2, -1}, {"x", 2, 1}}) {
        EXPECT_EQ(peergate_place_json(
                      env.pointers.data(), gpus, size, count, "nccl", out.data(), out.size()),
                  2)
            << gpus << " " << size << " " << count;
        const auto doc = nlohmann::json::parse(out.c_str());
        EXPECT_EQ(doc["schema"], "peergate.placement/v1");
        EXPECT_FALSE(doc["error"].get<std::string>().empty()) << doc.dump();
    }
}

TEST(CApiDocuments, ASmallBufferGetsTheSizeNeeded) {
    const auto env = simulated("bridged-a100-4x");
    std::string small(8, 'x');
    const int needed = peergate_topology_json(env.pointers.data(), small.data(), small.size());
    ASSERT_LT(needed, 0);
    EXPECT_EQ(small[0], '\0');
    std::string out(static_cast<std::size_t>(-needed), '\0');
    EXPECT_EQ(peergate_topology_json(env.pointers.data(), out.data(), out.size()), 0);
    EXPECT_EQ(std::string(out.c_str()).size() + 1, out.size());
    EXPECT_LT(
        peergate_place_json(env.pointers.data(), "all", 2, 1, nullptr, small.data(), small.size()),
        0);
}

}  // namespace
