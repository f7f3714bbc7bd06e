// SPDX-License-Identifier: Apache-2.0
// NCCL's GPU Direct RDMA lines and DMA-BUF lines (sources/nccl/nccl_gdr), in the shapes the
// NCCL versions print, and through the whole parser with its merge.
#include "sources/nccl/nccl_gdr.hpp"

#include "sources/nccl/nccl_log_parser.hpp"

#include <gtest/gtest.h>

#include <string>

namespace peergate::sources::nccl {
namespace {

TEST(NcclGdr, ReadsACapabilityLineWithItsReason) {
    const auto line = parse_gdr("NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1' (no module)");
    ASSERT_TRUE(line.has_value());
    EXPECT_EQ(line->net, "IB");
    EXPECT_FALSE(line->enabled);
    EXPECT_EQ(line->hca, "1 'mlx5_1'");
    EXPECT_EQ(line->reason, "no module");
    EXPECT_EQ(line->gpu, "");
    EXPECT_EQ(model::to_text(*line),
              "NET/IB : GPU Direct RDMA Disabled for HCA 1 'mlx5_1' (no module)");
}

TEST(NcclGdr, ReadsTheNewerFormsWithTheirPathAndUnclosedQuote) {
    const auto peermem =
        parse_gdr("NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA 0 'mlx5_bond_0");
    ASSERT_TRUE(peermem.has_value());
    EXPECT_TRUE(peermem->enabled);
    EXPECT_EQ(peermem->via, "nvidia-peermem");
    EXPECT_EQ(peermem->hca, "0 'mlx5_bond_0'");
    const auto dmabuf =
        parse_gdr("NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'rocep1s0f0");
    ASSERT_TRUE(dmabuf.has_value());
    EXPECT_EQ(dmabuf->via, "DMABUF");
    EXPECT_EQ(model::to_text(*dmabuf),
              "NET/IB : GPU Direct RDMA (DMABUF) Enabled for HCA 0 'rocep1s0f0'");
    const auto plugin =
        parse_gdr("NET/NCCL RDMA Plugin v10 : GPU Direct RDMA Disabled for HCA 0 'rocep1s0f0'");
    ASSERT_TRUE(plugin.has_value());
    EXPECT_EQ(plugin->net, "NCCL RDMA Plugin v10");
    const auto range = parse_gdr("NET/IB : GPU Direct RDMA Enabled for HCA 0..3");
    ASSERT_TRUE(range.has_value());
    EXPECT_EQ(range->hca, "0..3");
}

TEST(NcclGdr, ReadsADecisionWithItsDistance) {
    const auto far = parse_gdr("GPU Direct RDMA Disabled for GPU 0 / HCA 0 (distance 8 > 5)");
    ASSERT_TRUE(far.has_value());
    EXPECT_EQ(far->net, "");
    EXPECT_EQ(far->gpu, "0");
    EXPECT_EQ(far->hca, "0");
    EXPECT_EQ(far->distance, 8);
    EXPECT_EQ(far->comparison, ">");
    EXPECT_EQ(far->limit, 5);
    EXPECT_EQ(model::to_text(*far), "GPU Direct RDMA Disabled for GPU 0 / HCA 0 (distance 8 > 5)");
    const auto old =
        parse_gdr("NET/IB : GPU Direct RDMA Disabled for GPU 1b000 / HCA 0 (distance 7 >= 4)");
    ASSERT_TRUE(old.has_value());
    EXPECT_EQ(old->gpu, "1b000");
    EXPECT_EQ(old->comparison, ">=");
    const auto near = parse_gdr(
        "GPU Direct RDMA Enabled for GPU 1 / HCA 1 (distance 4 <= 5), read 1 mode Default");
    ASSERT_TRUE(near.has_value());
    EXPECT_TRUE(near->enabled);
    EXPECT_EQ(near->distance, 4);
    const auto bare = parse_gdr("GPU Direct RDMA Enabled for GPU 1 / HCA 1");
    ASSERT_TRUE(bare.has_value());
    EXPECT_EQ(bare->distance, std::nullopt);
}

TEST(NcclGdr, OtherLinesAreNotGdrLines) {
    for (const char* body : {"NET/IB : Using [0]mlx5_0:1/IB [RO]; OOB ib0:10.0.0.1<0>",
                             "NET/Plugin: Loaded net plugin NCCL RDMA Plugin v9 (v9)",
                             "GPU Direct RDMA Maybe for HCA 0",
                             "GPU Direct RDMA Enabled for HCA ",
                             "GPU Direct RDMA Enabled for GPU 1 HCA 1",
                             "GPU Direct RDMA (DMABUF enabled for HCA 0",
                             "NET/IB GPU Direct RDMA Enabled for HCA 0",
                             ""}) {
        EXPECT_EQ(parse_gdr(body), std::nullopt) << body;
    }
    EXPECT_EQ(parse_dma_buf_device("DMA-BUF is available on GPU device 3"), 3);
    EXPECT_EQ(parse_dma_buf_device("DMA-BUF is available on GPU device x"), std::nullopt);
    EXPECT_EQ(parse_dma_buf_device("DMA-BUF is available on GPU device -1"), std::nullopt);
}

TEST(NcclGdr, TheParserCountsDistinctLinesPerHostAndMergesThem) {
    const std::string first =
        "a:1:1 [0] NCCL INFO DMA-BUF is available on GPU device 0\n"
        "a:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n"
        "a:1:2 [1] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n";
    const std::string second =
        "a:1:3 [1] NCCL INFO DMA-BUF is available on GPU device 1\n"
        "b:2:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n"
        "a:1:1 [0] NCCL INFO NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0'\n";
    NcclLogParser whole;
    whole.feed(first + second);
    NcclLogParser head;
    head.feed(first);
    NcclLogParser tail;
    tail.feed(second);
    head.merge_from(std::move(tail));
    for (const auto& log : {whole.result(), head.result()}) {
        ASSERT_EQ(log.gdr.size(), 2U);
        EXPECT_EQ(log.gdr[0].host, "a");
        EXPECT_EQ(log.gdr[0].count, 3U);
        EXPECT_EQ(log.gdr[1].host, "b");
        EXPECT_EQ(log.dma_buf_devices.at("a"), (std::set<int>{0, 1}));
    }
    EXPECT_EQ(whole.result(), head.result());
}

}  // namespace
}  // namespace peergate::sources::nccl
