// SPDX-License-Identifier: Apache-2.0
// NCCL's own word on GPUDirect RDMA: the "GPU Direct RDMA ..." lines (a network device's
// capability at init, NCCL's decision per GPU and NIC) and "DMA-BUF is available on GPU
// device N". They say why a receive went through host memory, which the connection lines
// alone do not. Formats, by NCCL version:
//   NET/IB : GPU Direct RDMA Disabled for HCA 0 'mlx5_0' (no module)
//   NET/IB : GPU Direct RDMA Enabled for HCA 0 'mlx5_0'
//   NET/IB : GPU Direct RDMA (nvidia-peermem) enabled for HCA 0 'mlx5_0      (no closing quote)
//   NET/IB : GPU Direct RDMA (DMABUF) enabled for HCA 0 'mlx5_0
//   GPU Direct RDMA Disabled for GPU 0 / HCA 0 (distance 8 > 5)
//   NET/IB : GPU Direct RDMA Disabled for GPU 1b000 / HCA 0 (distance 7 >= 4)
//   GPU Direct RDMA Enabled for GPU 1 / HCA 1 (distance 4 <= 5), read 1 mode Default
#pragma once

#include "model/nccl_log.hpp"
#include "sources/nccl/entry_budget.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::sources::nccl {

// One record body (after "NCCL INFO "); nullopt when it is not a GPU Direct RDMA line. The
// host is left empty.
std::optional<model::NcclGdrLine> parse_gdr(std::string_view body);

// "DMA-BUF is available on GPU device N": N; nullopt for any other body.
std::optional<int> parse_dma_buf_device(std::string_view body);

// The distinct GDR lines and DMA-BUF devices of a log, as the parser meets them.
class GdrRecords {
public:
    // Keeps lines and devices up to `limits.gdr_bytes`; the rest are counted in dropped().
    explicit GdrRecords(const NcclParserLimits& limits = {}) : budget_(limits.gdr_bytes) {}

    // True when the body was one of the two kinds (and is now counted).
    bool read(std::string_view host, std::string_view body);

    // Takes in what `later` read, as if its input had followed.
    void merge_from(GdrRecords&& later);

    void into(model::NcclLog& log) const;

    // Records not kept: the table was full (entry_budget.hpp).
    std::uint64_t dropped() const { return budget_.dropped(); }

private:
    void add(model::NcclGdrLine&& line);
    void add_dma_buf(const std::string& host, int device, std::uint64_t records = 1);

    std::vector<model::NcclGdrLine> lines_;
    std::map<std::string, std::size_t, std::less<>> index_;  // host + text -> position
    std::map<std::string, std::set<int>> dma_buf_;
    EntryBudget budget_;
};

}  // namespace peergate::sources::nccl
