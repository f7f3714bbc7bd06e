// SPDX-License-Identifier: Apache-2.0
// A GPU's or port's "aer" in a machine file: its AER counters as sysfs's three files give
// them, one object per file keyed by the kernel's error names and the file's total line,
// {"correctable": {"Bad TLP": 40, "TOTAL_ERR_COR": 40}, "nonfatal": {...}, "fatal": {...}}.
// A file left out is not written (as on a kernel without it); no "aer" at all: AER is off.
#pragma once

#include "model/pci_aer.hpp"
#include "util/expected.hpp"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace peergate::snapshot {

// The "aer" of `owner` (a GPU or a port object), nullopt when it has none.
util::Expected<std::optional<model::PciAer>> parse_aer(const nlohmann::json& owner,
                                                       const std::string& where);

nlohmann::ordered_json aer_to_json(const model::PciAer& aer);

// One file's text as the kernel writes it: "<name> <count>" lines, then `total_name` and the
// file's total (the sum of the counts when none is given).
std::string aer_file_text(const model::AerCounters& counters, std::string_view total_name);

// The form a machine file keeps: named counts above zero only, by name.
model::PciAer canonical_aer(model::PciAer aer);

}  // namespace peergate::snapshot
