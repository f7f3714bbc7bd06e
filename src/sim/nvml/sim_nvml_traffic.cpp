// SPDX-License-Identifier: Apache-2.0
#include "sim/nvml/sim_nvml_traffic.hpp"

#include "snapshot/derived.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace peergate::sim::nvml {

namespace {

using snapshot::MachineTrafficFlow;

const std::vector<MachineTrafficFlow>& flows_of(const SimMachine& machine) {
    static const std::vector<MachineTrafficFlow> kNone;
    return machine.file.traffic ? machine.file.traffic->flows : kNone;
}

// Seconds the flow has run by `elapsed`.
double seconds_run(const MachineTrafficFlow& flow, double elapsed) {
    const double end = std::min(elapsed, flow.stop_s.value_or(elapsed));
    return std::max(0.0, end - flow.start_s);
}

bool running_at(const MachineTrafficFlow& flow, double elapsed) {
    return elapsed >= flow.start_s && (!flow.stop_s || elapsed < *flow.stop_s);
}

// The links of the GPU at `position` a flow to or from `peer` uses: those that end at the
// peer, else (an NVSwitch machine) those that end at a switch.
std::vector<unsigned> links_toward(const SimMachine& machine, std::size_t position, int peer) {
    const auto other = snapshot::gpu_position(machine.file, peer);
    std::vector<unsigned> direct;
    std::vector<unsigned> switched;
    const auto& links = machine.gpus[position].links;
    for (unsigned l = 0; l < links.size(); ++l) {
        if (!links[l].active) {
            continue;
        }
        if (links[l].to_switch) {
            switched.push_back(l);
        } else if (other && links[l].remote == machine.gpus[*other].gpu.pci) {
            direct.push_back(l);
        }
    }
    return direct.empty() ? switched : direct;
}

std::uint64_t total_kib(const SimMachine& machine, std::size_t position, bool tx, double elapsed) {
    double bytes = 0.0;
    for (unsigned l = 0; l < machine.gpus[position].links.size(); ++l) {
        bytes += link_bytes(machine, position, l, tx, elapsed);
    }
    return static_cast<std::uint64_t>(bytes / 1024.0);
}

}  // namespace

double link_bytes(
    const SimMachine& machine, std::size_t position, unsigned link, bool tx, double elapsed) {
    const int self = machine.gpus[position].gpu.index;
    double bytes = 0.0;
    for (const auto& flow : flows_of(machine)) {
        if (flow.over != "nvlink" || (tx ? flow.from : flow.to) != self) {
            continue;
        }
        const auto links = links_toward(machine, position, tx ? flow.to : flow.from);
        if (std::find(links.begin(), links.end(), link) != links.end()) {
            bytes +=
                flow.gbps * 1e9 * seconds_run(flow, elapsed) / static_cast<double>(links.size());
        }
    }
    return bytes;
}

bool is_traffic_field(unsigned field) {
    return field >= NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX &&
           field <= NVML_FI_DEV_NVLINK_THROUGHPUT_RAW_RX;
}

void fill_traffic_field(const SimMachine& machine,
                        std::size_t position,
                        double elapsed,
                        nvmlFieldValue_t* value) {
    const auto& traffic = machine.file.traffic;
    const std::string mode = traffic ? traffic->nvlink_counters : "per_link";
    const auto& links = machine.gpus[position].links;
    const bool data = value->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX ||
                      value->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX;
    if (!data || mode == "absent" || links.empty()) {
        value->nvmlReturn = NVML_ERROR_NOT_SUPPORTED;
        return;
    }
    const bool tx = value->fieldId == NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX;
    const bool sum = value->scopeId == PEERGATE_NVML_SCOPE_ALL_LINKS || mode == "aggregate";
    if (!sum && (value->scopeId >= links.size() || !links[value->scopeId].active)) {
        value->nvmlReturn = NVML_ERROR_INVALID_ARGUMENT;
        return;
    }
    const std::uint64_t kib =
        sum ? total_kib(machine, position, tx, elapsed)
            : static_cast<std::uint64_t>(
                  link_bytes(machine, position, value->scopeId, tx, elapsed) / 1024.0);
    value->nvmlReturn = NVML_SUCCESS;
    value->valueType = NVML_VALUE_TYPE_UNSIGNED_LONG_LONG;
    value->value.ullVal = (traffic ? traffic->start_kib : 0) + kib;  // wraps, as a counter does
}

nvmlReturn_t pcie_throughput(const SimMachine& machine,
                             std::size_t position,
                             int counter,
                             double elapsed,
                             unsigned* kilobytes_per_second) {
    if (machine.file.traffic && !machine.file.traffic->pcie_counters) {
        return NVML_ERROR_NOT_SUPPORTED;
    }
    if ((counter != NVML_PCIE_UTIL_TX_BYTES && counter != NVML_PCIE_UTIL_RX_BYTES) ||
        kilobytes_per_second == nullptr) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    const int self = machine.gpus[position].gpu.index;
    const bool tx = counter == NVML_PCIE_UTIL_TX_BYTES;
    double rate = 0.0;
    for (const auto& flow : flows_of(machine)) {
        if (flow.over == "pcie" && (tx ? flow.from : flow.to) == self &&
            running_at(flow, elapsed)) {
            rate += flow.gbps * 1e9;
        }
    }
    const double kb = std::round(rate / 1024.0);
    *kilobytes_per_second =
        static_cast<unsigned>(std::min(kb, double{std::numeric_limits<unsigned>::max()}));
    return NVML_SUCCESS;
}

}  // namespace peergate::sim::nvml
