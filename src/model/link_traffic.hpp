// SPDX-License-Identifier: Apache-2.0
// What `peergate watch` reads while a job runs (docs/watch.md): where each NVLink of a
// watched GPU ends, and rounds of its traffic counters as NVML answered them. NVML keeps the
// NVLink data counters in KiB since the driver loaded; PCIe it gives only as a rate, sampled
// over 20 ms by the call itself (docs/driver-facts.md "Traffic counters").
#pragma once

#include "model/pci_address.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace peergate::model {

// One active NVLink of a watched GPU and its far end: a peer GPU (its nvidia-smi index), an
// NVSwitch, or a device NVML named that is not a watched GPU (neither set).
struct WatchedLink {
    int link = 0;
    bool to_switch = false;
    std::optional<int> peer;

    friend bool operator==(const WatchedLink&, const WatchedLink&) = default;
};

struct WatchedGpu {
    int index = 0;  // nvidia-smi / NVML index
    std::string name;
    PciAddress pci;
    std::vector<WatchedLink> links;  // active links only, by index

    friend bool operator==(const WatchedGpu&, const WatchedGpu&) = default;
};

// One link's data counters in one round; nullopt where NVML did not answer.
struct LinkCounterReading {
    int link = 0;
    std::optional<std::uint64_t> tx_kib;
    std::optional<std::uint64_t> rx_kib;

    friend bool operator==(const LinkCounterReading&, const LinkCounterReading&) = default;
};

// One GPU's counters in one round.
struct GpuCounterReading {
    std::vector<LinkCounterReading> links;    // the GPU's active links, as WatchedGpu lists them
    std::optional<std::uint64_t> sum_tx_kib;  // scopeId UINT_MAX: the sum over every link
    std::optional<std::uint64_t> sum_rx_kib;
    std::optional<std::uint32_t> pcie_tx_kb_per_s;  // KB/s (1024 bytes) over the call's 20 ms
    std::optional<std::uint32_t> pcie_rx_kb_per_s;
    std::string nvlink_missing;  // why no NVLink counter answered; "" when one did
    std::string pcie_missing;    // why PCIe did not answer; "" when it did

    friend bool operator==(const GpuCounterReading&, const GpuCounterReading&) = default;
};

// Every watched GPU's counters, read at `at_s` seconds after the first round began.
struct CounterRound {
    double at_s = 0.0;
    std::vector<GpuCounterReading> gpus;  // in WatchedGpu order

    friend bool operator==(const CounterRound&, const CounterRound&) = default;
};

}  // namespace peergate::model
