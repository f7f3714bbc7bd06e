// SPDX-License-Identifier: Apache-2.0
// A thing the doctor or a log reader concluded, with what to do about it. The code comes from
// the catalogue (model/finding_code.hpp); the message and the remedy are words for a person.
#pragma once

#include "model/finding_code.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::model {

struct Finding {
    FindingCode code = FindingCode::single_gpu;
    Severity severity = Severity::info;
    std::vector<int> gpus;    // nvidia-smi indices concerned
    std::string message;      // what is wrong, naming the pair and the layer
    std::string remedy;       // what to do; empty when there is nothing to do
    std::optional<int> xid;   // kernel-log findings only
    std::string pci_bus_id;   // kernel-log findings only
    std::string line;         // kernel-log findings only: the line read
    std::optional<int> sxid;  // FindingCode::sxid only: the NVSwitch error's number

    // The stable id the outputs carry: the catalogue's, "xid_<n>" and "sxid_<n>" numbered.
    std::string id() const;

    // Whether the catalogue gives this finding's code `flag`.
    bool has(FindingFlag flag) const { return has_flag(code, flag); }

    friend bool operator==(const Finding&, const Finding&) = default;
};

}  // namespace peergate::model
