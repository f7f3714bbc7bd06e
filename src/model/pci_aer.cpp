// SPDX-License-Identifier: Apache-2.0
#include "model/pci_aer.hpp"

namespace peergate::model {

std::uint64_t AerCounters::sum() const {
    if (total) {
        return *total;
    }
    std::uint64_t out = 0;
    for (const auto& [name, count] : counts) {
        out += count;
    }
    return out;
}

}  // namespace peergate::model
