// SPDX-License-Identifier: Apache-2.0
// The status tokens gather records: nvidia-smi topo -p2p's letters for NVML's values.
#include "sources/nvml/nvml_record.hpp"

#include <gtest/gtest.h>

namespace peergate::nvml {
namespace {

TEST(NvmlRecordTokens, EveryDocumentedStatusHasItsLetters) {
    const std::vector<std::pair<nvmlGpuP2PStatus_t, std::string>> table{
        {NVML_P2P_STATUS_OK, "OK"},
        {NVML_P2P_STATUS_CHIPSET_NOT_SUPPORED, "CNS"},
        {NVML_P2P_STATUS_GPU_NOT_SUPPORTED, "GNS"},
        {NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED, "TNS"},
        {NVML_P2P_STATUS_DISABLED_BY_REGKEY, "DR"},
        {NVML_P2P_STATUS_NOT_SUPPORTED, "NS"},
        {NVML_P2P_STATUS_UNKNOWN, "U"},
    };
    for (const auto& [status, token] : table) {
        EXPECT_EQ(p2p_status_token(status), token) << static_cast<int>(status);
    }
}

TEST(NvmlRecordTokens, AValueANewerDriverAddsHasNoToken) {
    EXPECT_EQ(p2p_status_token(static_cast<nvmlGpuP2PStatus_t>(7)), std::nullopt);
    EXPECT_EQ(p2p_status_token(static_cast<nvmlGpuP2PStatus_t>(-1)), std::nullopt);
}

}  // namespace
}  // namespace peergate::nvml
