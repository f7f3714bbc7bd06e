// SPDX-License-Identifier: Apache-2.0
#include "policy/watch/path_verdicts.hpp"

#include "policy/watch/traffic_units.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace peergate::policy::watch {

namespace {

bool links_to(const model::WatchedGpu& gpu, int peer) {
    return std::any_of(
        gpu.links.begin(), gpu.links.end(), [&](const auto& link) { return link.peer == peer; });
}

bool links_to_switch(const model::WatchedGpu& gpu) {
    return std::any_of(
        gpu.links.begin(), gpu.links.end(), [](const auto& link) { return link.to_switch; });
}

// What a's links toward b counted, both ways; nullopt where a's counters do not say.
std::optional<std::uint64_t> counted_toward(const GpuTotals& a, int b) {
    for (const auto& end : a.toward) {
        if (end.peer == b && !end.to_switch) {
            return end.tx.bytes + end.rx.bytes;
        }
    }
    return std::nullopt;
}

std::optional<std::uint64_t> pair_bytes(const GpuTotals& a, const GpuTotals& b) {
    const auto ab = counted_toward(a, b.index);
    const auto ba = counted_toward(b, a.index);
    if (ab && ba) {
        return std::max(*ab, *ba);  // one link seen from both ends
    }
    return ab ? ab : ba;
}

bool nvlink_unknown(const GpuTotals& gpu) {
    return gpu.nvlink == NvlinkCounting::unavailable;
}

bool pcie_moved(const GpuTotals& gpu) {
    return gpu.pcie_bytes() >= kMovedPcieBytes;
}

// The NVLink part: a verdict of nvlink when the pair's links (or, through switches or links not
// told apart, both GPUs) moved data; otherwise nullopt and `why` says what was seen.
std::optional<PairVerdict> over_nvlink(PairVerdict pair,
                                       const GpuTotals& a,
                                       const GpuTotals& b,
                                       std::string& why) {
    if (nvlink_unknown(a) || nvlink_unknown(b)) {
        const GpuTotals& missing = nvlink_unknown(a) ? a : b;
        why = fmt::format(
            "GPU {} NVLink counters unavailable ({})", missing.index, missing.nvlink_reason);
        return std::nullopt;
    }
    pair.nvlink_bytes = pair.route == NvlinkRoute::direct ? pair_bytes(a, b) : std::nullopt;
    if (pair.nvlink_bytes) {
        if (*pair.nvlink_bytes >= kMovedNvlinkBytes) {
            pair.verdict = PathVerdict::nvlink;
            pair.reason =
                fmt::format("{} over the NVLinks between them", bytes_text(*pair.nvlink_bytes));
            return pair;
        }
        why = fmt::format("{} over the NVLinks between them", bytes_text(*pair.nvlink_bytes));
        return std::nullopt;
    }
    if (a.nvlink_bytes() >= kMovedNvlinkBytes && b.nvlink_bytes() >= kMovedNvlinkBytes) {
        pair.verdict = PathVerdict::nvlink;
        pair.reason = fmt::format(
            "GPU {} moved {} and GPU {} {} over NVLink ({}: which peer each byte went to is "
            "not counted)",
            a.index,
            bytes_text(a.nvlink_bytes()),
            b.index,
            bytes_text(b.nvlink_bytes()),
            pair.route == NvlinkRoute::nvswitch ? "through NVSwitches" : "links not told apart");
        return pair;
    }
    why = fmt::format("NVLink: GPU {} {}, GPU {} {}",
                      a.index,
                      bytes_text(a.nvlink_bytes()),
                      b.index,
                      bytes_text(b.nvlink_bytes()));
    return std::nullopt;
}

PairVerdict judge(PairVerdict pair, const GpuTotals& a, const GpuTotals& b) {
    std::string nvlink_words;
    if (pair.route != NvlinkRoute::none) {
        if (auto over = over_nvlink(pair, a, b, nvlink_words)) {
            return *over;
        }
    }
    const bool doubt = pair.route != NvlinkRoute::none && (nvlink_unknown(a) || nvlink_unknown(b));
    if (!a.pcie_known || !b.pcie_known) {
        const GpuTotals& missing = !a.pcie_known ? a : b;
        pair.reason = fmt::format("{}GPU {} PCIe counters unavailable ({})",
                                  nvlink_words.empty() ? "" : nvlink_words + "; ",
                                  missing.index,
                                  missing.pcie_reason);
        return pair;
    }
    const std::string pcie_words = fmt::format("PCIe: GPU {} {}, GPU {} {}",
                                               a.index,
                                               bytes_text(a.pcie_bytes()),
                                               b.index,
                                               bytes_text(b.pcie_bytes()));
    const bool moved = pcie_moved(a) && pcie_moved(b);
    pair.verdict = doubt ? PathVerdict::unknown : moved ? PathVerdict::pcie : PathVerdict::idle;
    pair.reason = nvlink_words.empty() ? pcie_words : nvlink_words + "; " + pcie_words;
    return pair;
}

}  // namespace

const char* to_string(PathVerdict verdict) {
    switch (verdict) {
        case PathVerdict::nvlink:
            return "nvlink";
        case PathVerdict::pcie:
            return "pcie";
        case PathVerdict::idle:
            return "idle";
        case PathVerdict::unknown:
            return "unknown";
    }
    return "unknown";
}

const char* to_string(NvlinkRoute route) {
    switch (route) {
        case NvlinkRoute::none:
            return "none";
        case NvlinkRoute::direct:
            return "direct";
        case NvlinkRoute::nvswitch:
            return "nvswitch";
    }
    return "none";
}

NvlinkRoute nvlink_route(const std::vector<model::WatchedGpu>& gpus, std::size_t p, std::size_t q) {
    if (links_to(gpus[p], gpus[q].index) || links_to(gpus[q], gpus[p].index)) {
        return NvlinkRoute::direct;
    }
    return links_to_switch(gpus[p]) && links_to_switch(gpus[q]) ? NvlinkRoute::nvswitch
                                                                : NvlinkRoute::none;
}

std::vector<PairVerdict> judge_pairs(const std::vector<model::WatchedGpu>& gpus,
                                     const TrafficTotals& totals) {
    std::vector<PairVerdict> out;
    if (totals.gpus.size() != gpus.size()) {
        return out;
    }
    for (std::size_t p = 0; p < gpus.size(); ++p) {
        for (std::size_t q = p + 1; q < gpus.size(); ++q) {
            const PairVerdict pair{
                .a = gpus[p].index, .b = gpus[q].index, .route = nvlink_route(gpus, p, q)};
            out.push_back(judge(pair, totals.gpus[p], totals.gpus[q]));
        }
    }
    return out;
}

}  // namespace peergate::policy::watch
