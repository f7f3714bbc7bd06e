// SPDX-License-Identifier: Apache-2.0
// The PCIe Advanced Error Reporting counters Linux keeps per device since boot (sysfs
// aer_dev_correctable, aer_dev_nonfatal, aer_dev_fatal; kernel 4.19 and later). A link
// partner may count the errors of a faulty endpoint, so a GPU's errors can show at its port.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace peergate::model {

// One file: each error the kernel names ("Bad TLP", or "BadTLP" on newer kernels) with its
// count, in file order, and the file's TOTAL_ERR_* line (the messages received, which may
// count several errors once).
struct AerCounters {
    std::vector<std::pair<std::string, std::uint64_t>> counts;
    std::optional<std::uint64_t> total;

    // TOTAL_ERR_*, else the sum of the counts.
    std::uint64_t sum() const;

    friend bool operator==(const AerCounters&, const AerCounters&) = default;
};

// A device's three files; nullopt where the file could not be read.
struct PciAer {
    std::optional<AerCounters> correctable;
    std::optional<AerCounters> nonfatal;
    std::optional<AerCounters> fatal;

    friend bool operator==(const PciAer&, const PciAer&) = default;
};

}  // namespace peergate::model
