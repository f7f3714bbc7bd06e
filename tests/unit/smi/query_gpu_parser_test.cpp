// SPDX-License-Identifier: Apache-2.0
// nvidia-smi --query-gpu=index,name,pci.bus_id,uuid --format=csv,noheader
#include "sources/smi/query_gpu_parser.hpp"

#include "sources/smi/topo_m_parser.hpp"

#include <gtest/gtest.h>

namespace peergate::sources::smi {
namespace {

// The shape nvidia-smi prints: ", " between fields, NVML's 8-digit-domain bus id.
constexpr const char* kTwoB200 =
    "0, NVIDIA B200, 00000000:1B:00.0, GPU-8d5f3d0e-1c2b-4a55-9e61-0123456789ab\n"
    "1, NVIDIA B200, 00000000:43:00.0, GPU-19a7c2b4-77de-4f01-8b2c-ba9876543210\n";

TEST(QueryGpuParser, ReadsEveryField) {
    const auto gpus = parse_query_gpu(kTwoB200);
    ASSERT_TRUE(gpus.has_value()) << gpus.error().message;
    ASSERT_EQ(gpus->size(), 2U);
    const auto& second = (*gpus)[1];
    EXPECT_EQ(second.index, 1);
    EXPECT_EQ(second.name, "NVIDIA B200");
    ASSERT_TRUE(second.pci.has_value());
    EXPECT_EQ(second.pci->bus, 0x43);
    EXPECT_EQ(second.pci->to_nvml(), "00000000:43:00.0");
    EXPECT_EQ(second.uuid, "GPU-19a7c2b4-77de-4f01-8b2c-ba9876543210");
    EXPECT_FALSE(second.numa_node.has_value()) << "the query does not say";
}

TEST(QueryGpuParser, AcceptsCrlfBlankLinesAndShortBusIds) {
    const auto gpus = parse_query_gpu("\r\n3,Tesla V100-SXM2-16GB,0000:86:00.0,GPU-x\r\n\r\n");
    ASSERT_TRUE(gpus.has_value()) << gpus.error().message;
    ASSERT_EQ(gpus->size(), 1U);
    EXPECT_EQ((*gpus)[0].index, 3);
    EXPECT_EQ((*gpus)[0].name, "Tesla V100-SXM2-16GB");
    EXPECT_EQ((*gpus)[0].uuid, "GPU-x");
}

struct BadLine {
    std::string text;
    std::string says;
};

TEST(QueryGpuParser, RejectsBadLinesNamingTheLineAndTheProblem) {
    const std::vector<BadLine> cases{
        {"x, NVIDIA B200, 00000000:1B:00.0, GPU-a\n", "line 1: bad index"},
        {"-1, NVIDIA B200, 00000000:1B:00.0, GPU-a\n", "line 1: bad index"},
        {", NVIDIA B200, 00000000:1B:00.0, GPU-a\n", "line 1: bad index"},
        {"0, NVIDIA B200, 00000000:1B:00.0, GPU-a\n1, NVIDIA B200, 1B:zz.0, GPU-b\n",
         "line 2: '1B:zz.0' is not a PCI address"},
        {"0, NVIDIA B200, [N/A], GPU-a\n", "is not a PCI address"},
        {"0, NVIDIA B200, 00000000:1B:00.0\n",
         "line 1: 3 fields, expected index,name,pci.bus_id,uuid"},
        {"0, NVIDIA B200, 00000000:1B:00.0, GPU-a, extra\n", "line 1: 5 fields"},
        {"index, name, pci.bus_id, uuid\n", "bad index"},  // a header where none belongs
        {"No devices were found\n", "1 fields"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c.text);
        const auto gpus = parse_query_gpu(c.text);
        ASSERT_FALSE(gpus.has_value());
        EXPECT_EQ(gpus.error().code, util::ErrorCode::invalid_input);
        EXPECT_NE(gpus.error().message.find(c.says), std::string::npos) << gpus.error().message;
    }
}

TEST(QueryGpuParser, EmptyOutputListsNoGpu) {
    for (const std::string empty : {"", "\n", "  \n\t\n"}) {
        const auto gpus = parse_query_gpu(empty);
        ASSERT_FALSE(gpus.has_value());
        EXPECT_NE(gpus.error().message.find("lists no GPU"), std::string::npos);
    }
}

}  // namespace
}  // namespace peergate::sources::smi
