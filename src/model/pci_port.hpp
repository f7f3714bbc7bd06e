// SPDX-License-Identifier: Apache-2.0
// A PCIe port above a GPU (a root port or a switch port) and its ACS (Access Control
// Services) control bits: with P2P request or completion redirect on, a switch sends peer
// traffic up to the root complex instead of across to the other port, where a translating
// IOMMU handles it (PCIe ACS Extended Capability, ID 0x000D, control register at +6).
#pragma once

#include "model/pci_address.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace peergate::model {

struct AcsControl {
    // Bit order of the capability and control registers, with lspci's names.
    static constexpr std::uint16_t kSourceValidation = 0x01;     // SrcValid
    static constexpr std::uint16_t kTranslationBlocking = 0x02;  // TransBlk
    static constexpr std::uint16_t kRequestRedirect = 0x04;      // ReqRedir
    static constexpr std::uint16_t kCompletionRedirect = 0x08;   // CmpltRedir
    static constexpr std::uint16_t kUpstreamForwarding = 0x10;   // UpstreamFwd
    static constexpr std::uint16_t kEgressControl = 0x20;        // EgressCtrl
    static constexpr std::uint16_t kDirectTranslated = 0x40;     // DirectTrans

    std::uint16_t bits = 0;

    // Peer requests or completions are redirected upstream.
    bool redirects() const { return (bits & (kRequestRedirect | kCompletionRedirect)) != 0; }

    // As `lspci -vvv` prints ACSCtl: "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ ...".
    std::string describe() const;

    friend bool operator==(const AcsControl&, const AcsControl&) = default;
};

struct PciPort {
    PciAddress address;
    // The port's ACS control; nullopt when it has no ACS capability or it could not be read.
    std::optional<AcsControl> acs;
    std::string unread;  // why the ACS control could not be read; empty when it was

    friend bool operator==(const PciPort&, const PciPort&) = default;
};

// A PCI function and the ports above it, nearest first (the port it is plugged into, then
// upwards to the root port).
struct PciPath {
    PciAddress device;
    std::vector<PciPort> ports;

    friend bool operator==(const PciPath&, const PciPath&) = default;
};

}  // namespace peergate::model
