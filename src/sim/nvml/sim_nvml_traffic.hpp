// SPDX-License-Identifier: Apache-2.0
// The simulated traffic counters: what the machine file's "traffic" flows have moved by a
// moment of the simulated clock (seconds since the first nvmlInit), as the NVLink throughput
// fields and nvmlDeviceGetPcieThroughput answer it (docs/machine-file.md "traffic").
#pragma once

#include "sim/nvml/sim_nvml_machine.hpp"
#include "sources/nvml/nvml_abi.hpp"

#include <cstdint>

namespace peergate::sim::nvml {

// Bytes link `link` of the GPU at `position` has sent (`tx`) or received by `elapsed`: each
// NVLink flow spreads evenly over the sender's links to its peer (its NVSwitch links where it
// has none to the peer) and over the receiver's links back.
double link_bytes(
    const SimMachine& machine, std::size_t position, unsigned link, bool tx, double elapsed);

// Whether `field` is one of the NVLink throughput fields (138 to 141).
bool is_traffic_field(unsigned field);

// One NVLink throughput field value at `elapsed`: data TX/RX in KiB from traffic.start_kib
// (wrapping at 2^64); the raw fields and a machine whose counters are "absent" answer
// NOT_SUPPORTED, an inactive or missing link INVALID_ARGUMENT. scopeId UINT_MAX, and every
// scopeId under "aggregate", is the sum over the GPU's links.
void fill_traffic_field(const SimMachine& machine,
                        std::size_t position,
                        double elapsed,
                        nvmlFieldValue_t* value);

// nvmlDeviceGetPcieThroughput at `elapsed`: the PCIe flows in force then, in KB/s (1024
// bytes), TX those the GPU sends, RX those it receives.
nvmlReturn_t pcie_throughput(const SimMachine& machine,
                             std::size_t position,
                             int counter,
                             double elapsed,
                             unsigned* kilobytes_per_second);

}  // namespace peergate::sim::nvml
