// SPDX-License-Identifier: Apache-2.0
// The JSON types of peergate.machine/v1's fields, checked before the values are read, so a
// wrong type is reported as "gpus[2].numa_node: expected a 32-bit integer, got string" rather
// than as a bare JSON library message. Unknown keys are allowed (newer writers add fields).
#pragma once

#include "util/expected.hpp"

#include <nlohmann/json.hpp>

namespace peergate::snapshot {

// Checks every known field of a machine file document; the error names the first field
// whose JSON type is wrong.
util::Expected<void> check_field_types(const nlohmann::json& doc);

}  // namespace peergate::snapshot
