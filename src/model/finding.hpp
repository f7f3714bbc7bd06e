// SPDX-License-Identifier: Apache-2.0
// A thing the doctor or a log reader concluded, with what to do about it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace peergate::model {

enum class Severity { error, warning, info };

// "error", "warning", "info".
std::string_view to_string(Severity severity);

struct Finding {
    std::string code;  // stable snake_case id, e.g. "p2p_over_translating_iommu"
    Severity severity = Severity::info;
    std::vector<int> gpus;   // nvidia-smi indices concerned
    std::string message;     // what is wrong, naming the pair and the layer
    std::string remedy;      // what to do; empty when there is nothing to do
    std::optional<int> xid;  // kernel-log findings only
    std::string pci_bus_id;  // kernel-log findings only
    std::string line;        // kernel-log findings only: the line read

    friend bool operator==(const Finding&, const Finding&) = default;
};

}  // namespace peergate::model
