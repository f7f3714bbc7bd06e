// SPDX-License-Identifier: Apache-2.0
#include "policy/watch/traffic_totals.hpp"

#include <algorithm>
#include <cmath>

namespace peergate::policy::watch {

namespace {

using model::CounterRound;
using model::GpuCounterReading;
using model::WatchedGpu;
using Kib = std::optional<std::uint64_t>;

constexpr double kBytesPerKib = 1024.0;

// The bytes one KiB counter moved between two rounds `dt` apart; nullopt where either read
// failed or the step is a reset (counted in `resets`).
std::optional<double> step_bytes(const Kib& before, const Kib& after, double dt, int& resets) {
    if (!before || !after || dt <= 0.0) {
        return std::nullopt;
    }
    const std::uint64_t kib = *after - *before;  // modulo 2^64: a counter that wrapped
    const double bytes = static_cast<double>(kib) * kBytesPerKib;
    if (bytes / dt > kMostCountedBytesPerSecond) {
        ++resets;
        return std::nullopt;
    }
    return bytes;
}

void add(CounterTotal& total, double bytes, double dt) {
    total.bytes += static_cast<std::uint64_t>(bytes);
    total.peak_bytes_per_s = std::max(total.peak_bytes_per_s, bytes / dt);
}

bool any_link_answered(const GpuCounterReading& reading) {
    return std::any_of(reading.links.begin(), reading.links.end(), [](const auto& link) {
        return link.tx_kib.has_value() || link.rx_kib.has_value();
    });
}

// A KiB counter's steps over the rounds, modulo 2^64 (a wrap); nullopt where a read is missing.
template <typename Read>
std::optional<double> kib_moved(const std::vector<CounterRound>& rounds, std::size_t g, Read read) {
    double moved = 0.0;
    for (std::size_t r = 1; r < rounds.size(); ++r) {
        const Kib before = read(rounds[r - 1].gpus[g]);
        const Kib after = read(rounds[r].gpus[g]);
        if (!before || !after) {
            return std::nullopt;
        }
        moved += static_cast<double>(*after - *before);
    }
    return moved;
}

// Every link stepping by what the sum over all links stepped (within 1 %, as reads a moment
// apart differ), while the sum moved: a driver that answers the GPU's sum for every link
// (docs/driver-facts.md "Traffic counters"). Without the sum it cannot be told, and the links
// are taken as their own.
bool links_not_told_apart(const WatchedGpu& gpu,
                          const std::vector<CounterRound>& rounds,
                          std::size_t g) {
    if (gpu.links.size() < 2 || rounds.size() < 2) {
        return false;
    }
    const auto sum = kib_moved(rounds, g, [](const GpuCounterReading& r) { return r.sum_tx_kib; });
    if (!sum || *sum <= 0.0) {
        return false;
    }
    for (std::size_t l = 0; l < gpu.links.size(); ++l) {
        const auto link = kib_moved(rounds, g, [l](const GpuCounterReading& r) {
            return l < r.links.size() ? r.links[l].tx_kib : std::nullopt;
        });
        if (!link || std::abs(*link - *sum) > 0.01 * *sum) {
            return false;
        }
    }
    return true;
}

std::string first_reason(const std::vector<CounterRound>& rounds,
                         std::size_t g,
                         std::string GpuCounterReading::*reason) {
    for (const auto& round : rounds) {
        if (!(round.gpus[g].*reason).empty()) {
            return round.gpus[g].*reason;
        }
    }
    return "NVML answered no round";
}

NvlinkCounting nvlink_counting(const WatchedGpu& gpu,
                               const std::vector<CounterRound>& rounds,
                               std::size_t g) {
    const bool answered = std::any_of(rounds.begin(), rounds.end(), [&](const auto& round) {
        return any_link_answered(round.gpus[g]);
    });
    if (gpu.links.empty() || !answered) {
        return NvlinkCounting::unavailable;
    }
    return links_not_told_apart(gpu, rounds, g) ? NvlinkCounting::summed_only
                                                : NvlinkCounting::per_link;
}

std::size_t group_of(const std::vector<PeerTotals>& toward, const model::WatchedLink& link) {
    for (std::size_t k = 0; k < toward.size(); ++k) {
        if (toward[k].peer == link.peer && toward[k].to_switch == link.to_switch) {
            return k;
        }
    }
    return toward.size();
}

std::vector<PeerTotals> far_ends(const WatchedGpu& gpu) {
    std::vector<PeerTotals> toward;
    for (const auto& link : gpu.links) {
        const auto k = group_of(toward, link);
        if (k == toward.size()) {
            toward.push_back(PeerTotals{.peer = link.peer, .to_switch = link.to_switch});
        }
        ++toward[k].links;
    }
    return toward;
}

// One interval of a per-link GPU: each link's steps, their sums toward each far end, and
// their sum as the GPU's.
void add_link_interval(GpuTotals& totals,
                       const GpuCounterReading& before,
                       const GpuCounterReading& after,
                       double dt) {
    double tx_sum = 0.0;
    double rx_sum = 0.0;
    std::vector<double> tx_toward(totals.toward.size(), 0.0);
    std::vector<double> rx_toward(totals.toward.size(), 0.0);
    for (std::size_t l = 0; l < totals.links.size(); ++l) {
        if (l >= before.links.size() || l >= after.links.size()) {
            continue;
        }
        const auto k = group_of(totals.toward, totals.links[l].link);
        if (const auto tx = step_bytes(
                before.links[l].tx_kib, after.links[l].tx_kib, dt, totals.counter_resets)) {
            add(totals.links[l].tx, *tx, dt);
            tx_sum += *tx;
            tx_toward[k] += *tx;
        }
        if (const auto rx = step_bytes(
                before.links[l].rx_kib, after.links[l].rx_kib, dt, totals.counter_resets)) {
            add(totals.links[l].rx, *rx, dt);
            rx_sum += *rx;
            rx_toward[k] += *rx;
        }
    }
    for (std::size_t k = 0; k < totals.toward.size(); ++k) {
        add(totals.toward[k].tx, tx_toward[k], dt);
        add(totals.toward[k].rx, rx_toward[k], dt);
    }
    add(totals.nvlink_tx, tx_sum, dt);
    add(totals.nvlink_rx, rx_sum, dt);
}

// One interval of a GPU whose links all answer its sum: the first link's step is the GPU's.
void add_summed_interval(GpuTotals& totals,
                         const GpuCounterReading& before,
                         const GpuCounterReading& after,
                         double dt) {
    if (before.links.empty() || after.links.empty()) {
        return;
    }
    // Where every link ends at one place, the GPU's sum is what went there.
    PeerTotals* only = totals.toward.size() == 1 ? &totals.toward.front() : nullptr;
    if (const auto tx =
            step_bytes(before.links[0].tx_kib, after.links[0].tx_kib, dt, totals.counter_resets)) {
        add(totals.nvlink_tx, *tx, dt);
        if (only != nullptr) {
            add(only->tx, *tx, dt);
        }
    }
    if (const auto rx =
            step_bytes(before.links[0].rx_kib, after.links[0].rx_kib, dt, totals.counter_resets)) {
        add(totals.nvlink_rx, *rx, dt);
        if (only != nullptr) {
            add(only->rx, *rx, dt);
        }
    }
}

// PCIe comes as a rate: an interval moved about the mean of its two ends' rates.
void add_pcie_interval(GpuTotals& totals,
                       const GpuCounterReading& before,
                       const GpuCounterReading& after,
                       double dt) {
    auto one = [&](CounterTotal& total, const auto& a, const auto& b) {
        if (a && b && dt > 0.0) {
            total.bytes += static_cast<std::uint64_t>(
                (static_cast<double>(*a) + static_cast<double>(*b)) / 2.0 * kBytesPerKib * dt);
        }
    };
    one(totals.pcie_tx, before.pcie_tx_kb_per_s, after.pcie_tx_kb_per_s);
    one(totals.pcie_rx, before.pcie_rx_kb_per_s, after.pcie_rx_kb_per_s);
}

void add_pcie_peaks(GpuTotals& totals, const GpuCounterReading& reading) {
    if (!reading.pcie_tx_kb_per_s || !reading.pcie_rx_kb_per_s) {
        return;
    }
    totals.pcie_known = true;
    totals.pcie_tx.peak_bytes_per_s = std::max(
        totals.pcie_tx.peak_bytes_per_s, static_cast<double>(*reading.pcie_tx_kb_per_s) * 1024.0);
    totals.pcie_rx.peak_bytes_per_s = std::max(
        totals.pcie_rx.peak_bytes_per_s, static_cast<double>(*reading.pcie_rx_kb_per_s) * 1024.0);
}

GpuTotals gpu_totals(const WatchedGpu& gpu,
                     const std::vector<CounterRound>& rounds,
                     std::size_t g) {
    GpuTotals totals{.index = gpu.index, .name = gpu.name, .has_nvlink = !gpu.links.empty()};
    totals.nvlink = nvlink_counting(gpu, rounds, g);
    if (totals.nvlink == NvlinkCounting::unavailable) {
        totals.nvlink_reason = gpu.links.empty()
                                   ? "no active NVLink"
                                   : first_reason(rounds, g, &GpuCounterReading::nvlink_missing);
    } else if (totals.nvlink == NvlinkCounting::summed_only) {
        totals.nvlink_reason = "every link answers the GPU's sum: links not told apart";
        if (const auto ends = far_ends(gpu); ends.size() == 1) {
            totals.toward = ends;
        }
    } else {
        for (const auto& link : gpu.links) {
            totals.links.push_back(LinkTotals{.link = link, .tx = {}, .rx = {}});
        }
        totals.toward = far_ends(gpu);
    }
    for (std::size_t r = 0; r < rounds.size(); ++r) {
        add_pcie_peaks(totals, rounds[r].gpus[g]);
        if (r == 0) {
            continue;
        }
        const double dt = rounds[r].at_s - rounds[r - 1].at_s;
        const auto& before = rounds[r - 1].gpus[g];
        const auto& after = rounds[r].gpus[g];
        if (totals.nvlink == NvlinkCounting::per_link) {
            add_link_interval(totals, before, after, dt);
        } else if (totals.nvlink == NvlinkCounting::summed_only) {
            add_summed_interval(totals, before, after, dt);
        }
        add_pcie_interval(totals, before, after, dt);
    }
    if (!totals.pcie_known) {
        totals.pcie_reason = first_reason(rounds, g, &GpuCounterReading::pcie_missing);
    }
    return totals;
}

}  // namespace

const char* to_string(NvlinkCounting counting) {
    switch (counting) {
        case NvlinkCounting::per_link:
            return "per_link";
        case NvlinkCounting::summed_only:
            return "summed_only";
        case NvlinkCounting::unavailable:
            return "unavailable";
    }
    return "unavailable";
}

TrafficTotals total_traffic(const std::vector<WatchedGpu>& gpus,
                            const std::vector<CounterRound>& rounds) {
    TrafficTotals out;
    out.rounds = static_cast<int>(rounds.size());
    if (rounds.size() >= 2) {
        out.seconds = rounds.back().at_s - rounds.front().at_s;
    }
    for (std::size_t g = 0; g < gpus.size(); ++g) {
        const bool complete = std::all_of(rounds.begin(), rounds.end(), [&](const auto& round) {
            return round.gpus.size() == gpus.size();
        });
        if (complete) {
            out.gpus.push_back(gpu_totals(gpus[g], rounds, g));
        }
    }
    return out;
}

}  // namespace peergate::policy::watch
