// SPDX-License-Identifier: Apache-2.0
// The ACS control word from a PCIe port's configuration space, as sysfs `config` gives it:
// the extended capability list starts at 0x100, each header holding the capability id
// (bits 15:0), its version (19:16) and the next offset (31:20); ACS is id 0x000D, its
// control register the 16 bits at +6. Little-endian, as PCI configuration space is.
#pragma once

#include "model/pci_port.hpp"
#include "util/expected.hpp"

#include <optional>
#include <string_view>

namespace peergate::sources::host {

// nullopt: the port has no ACS capability. An error when the extended space is not there
// to read (a reader without root sees only the first 64 bytes of `config`).
util::Expected<std::optional<model::AcsControl>> parse_acs_control(std::string_view config);

}  // namespace peergate::sources::host
