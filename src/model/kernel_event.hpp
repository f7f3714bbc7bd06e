// SPDX-License-Identifier: Apache-2.0
// One kind of event found in the kernel log, with how often it appeared.
#pragma once

#include "model/pci_address.hpp"

#include <optional>
#include <string>

namespace peergate::model {

enum class KernelEventKind {
    xid,             // NVRM: Xid (PCI:...): N, ...
    fallen_off_bus,  // NVRM: GPU at ... has fallen off the bus (no Xid printed)
    dmar_fault,      // Intel VT-d: DMAR: [DMA Write] Request device [...] fault addr ...
    amd_vi_fault,    // AMD IOMMU: AMD-Vi: Event logged [IO_PAGE_FAULT ...]
};

struct KernelEvent {
    KernelEventKind kind = KernelEventKind::xid;
    std::optional<PciAddress> device;  // the device the line names, if it names one
    std::optional<int> xid;            // for kind xid
    std::string line;                  // the first line seen, prefixes removed
    int count = 1;                     // lines of this kind, device and xid
    int suppressed = 0;                // "N callbacks suppressed" that followed IOMMU faults

    friend bool operator==(const KernelEvent&, const KernelEvent&) = default;
};

}  // namespace peergate::model
