// SPDX-License-Identifier: Apache-2.0
// PCI addresses and ports from the text sysfs and lspci print, for tests that build a host
// by hand. A text that does not parse throws: the test itself is wrong.
#pragma once

#include "model/pci_address.hpp"
#include "model/pci_port.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace peergate::test {

inline model::PciAddress pci(const std::string& text) {
    return model::PciAddress::parse(text).value();
}

// A port with its ACS control (none: no ACS capability), or one whose control was unreadable.
inline model::PciPort port(const std::string& address,
                           std::optional<std::uint16_t> acs,
                           bool unread = false) {
    model::PciPort p{.address = pci(address)};
    if (acs) {
        p.acs = model::AcsControl{*acs};
    }
    if (unread) {
        p.unread = "config: Permission denied";
    }
    return p;
}

}  // namespace peergate::test
