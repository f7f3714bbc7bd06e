// SPDX-License-Identifier: Apache-2.0
// How tier 1 reads NVML's two enums (docs/gate-rules.md §3): a status or level it does not know,
// such as one a newer driver adds, is no answer, never a denial or a PCIe class.
#include "sources/nvml/nvml_topology.hpp"

#include <gtest/gtest.h>

namespace peergate::nvml {
namespace {

TEST(NvmlStatus, OnlyZeroIsLinkedAndOneToFiveAreDenials) {
    EXPECT_EQ(read_nvlink_status(NVML_P2P_STATUS_OK), NvlinkStatus::linked);
    for (int denial = 1; denial <= 5; ++denial) {
        SCOPED_TRACE(denial);
        EXPECT_EQ(read_nvlink_status(static_cast<nvmlGpuP2PStatus_t>(denial)),
                  NvlinkStatus::denied);
    }
}

TEST(NvmlStatus, UnknownOrANewerDriversValueIsNoAnswer) {
    EXPECT_FALSE(read_nvlink_status(NVML_P2P_STATUS_UNKNOWN));
    EXPECT_FALSE(read_nvlink_status(static_cast<nvmlGpuP2PStatus_t>(7)));
    EXPECT_FALSE(read_nvlink_status(static_cast<nvmlGpuP2PStatus_t>(-1)));
}

TEST(NvmlStatus, CommonAncestorLevelsReadAsNvidiaSmisTokens) {
    const std::pair<nvmlGpuTopologyLevel_t, const char*> levels[] = {
        {NVML_TOPOLOGY_INTERNAL, "PIX"},
        {NVML_TOPOLOGY_SINGLE, "PIX"},
        {NVML_TOPOLOGY_MULTIPLE, "PXB"},
        {NVML_TOPOLOGY_HOSTBRIDGE, "PHB"},
        {NVML_TOPOLOGY_NODE, "NODE"},
        {NVML_TOPOLOGY_SYSTEM, "SYS"},
    };
    for (const auto& [level, token] : levels) {
        SCOPED_TRACE(token);
        const auto label = label_for_ancestor(level);
        ASSERT_TRUE(label);
        EXPECT_EQ(label->to_token(), token);
    }
    EXPECT_FALSE(label_for_ancestor(static_cast<nvmlGpuTopologyLevel_t>(60)));
    EXPECT_FALSE(label_for_ancestor(static_cast<nvmlGpuTopologyLevel_t>(25)));
}

}  // namespace
}  // namespace peergate::nvml
