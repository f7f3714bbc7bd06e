// SPDX-License-Identifier: Apache-2.0
// Writing a machine file (peergate.machine/v1): the inverse of parse_machine in
// machine_file.hpp, which gather and the tests' fixtures use.
#pragma once

#include "snapshot/machine_file.hpp"

#include <string>

namespace peergate::snapshot {

// Serialises (pretty JSON, schema first); parse_machine(to_json_text(m)) == m.
std::string to_json_text(const MachineFile& machine);

}  // namespace peergate::snapshot
