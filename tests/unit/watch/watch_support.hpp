// SPDX-License-Identifier: Apache-2.0
// Builders for the watch policy tests: watched GPUs and rounds of counters written as data.
#pragma once

#include "model/link_traffic.hpp"
#include "policy/watch/traffic_totals.hpp"

#include <cstdint>
#include <optional>
#include <vector>

namespace peergate::watch_test {

constexpr std::uint64_t kGiB = std::uint64_t{1} << 30U;
constexpr std::uint64_t kKibPerGiB = std::uint64_t{1} << 20U;

// A GPU with `links` active links, all to `peer` (nullopt with to_switch: NVSwitches).
inline model::WatchedGpu gpu_with_links(int index,
                                        int links,
                                        std::optional<int> peer,
                                        bool to_switch = false) {
    model::WatchedGpu gpu{.index = index, .name = "NVIDIA H100", .pci = {}, .links = {}};
    for (int l = 0; l < links; ++l) {
        gpu.links.push_back(model::WatchedLink{.link = l, .to_switch = to_switch, .peer = peer});
    }
    return gpu;
}

// A reading where every one of `links` links counts `tx_kib`/`rx_kib` and PCIe `pcie_kbps`.
inline model::GpuCounterReading reading(int links,
                                        std::uint64_t tx_kib,
                                        std::uint64_t rx_kib,
                                        std::optional<std::uint32_t> pcie_kbps = 0) {
    model::GpuCounterReading r;
    for (int l = 0; l < links; ++l) {
        r.links.push_back(model::LinkCounterReading{.link = l, .tx_kib = tx_kib, .rx_kib = rx_kib});
    }
    r.sum_tx_kib = tx_kib * static_cast<std::uint64_t>(links);
    r.sum_rx_kib = rx_kib * static_cast<std::uint64_t>(links);
    r.pcie_tx_kb_per_s = pcie_kbps;
    r.pcie_rx_kb_per_s = pcie_kbps;
    if (!pcie_kbps) {
        r.pcie_missing = "nvmlDeviceGetPcieThroughput failed: 3 (Not Supported)";
    }
    return r;
}

// A per-link GPU whose counters answered, having sent `nvlink` bytes over NVLink and `pcie`
// over PCIe.
inline policy::watch::GpuTotals gpu_moving(int index, std::uint64_t nvlink, std::uint64_t pcie) {
    policy::watch::GpuTotals gpu{.index = index,
                                 .name = "NVIDIA H100",
                                 .nvlink = policy::watch::NvlinkCounting::per_link,
                                 .has_nvlink = true,
                                 .pcie_known = true};
    gpu.nvlink_tx.bytes = nvlink;
    gpu.pcie_tx.bytes = pcie;
    return gpu;
}

}  // namespace peergate::watch_test
