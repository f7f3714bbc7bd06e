// SPDX-License-Identifier: Apache-2.0
// One kind of event found in the kernel log, with how often it appeared.
#pragma once

#include "model/pci_address.hpp"

#include <optional>
#include <string>
#include <vector>

namespace peergate::model {

enum class KernelEventKind {
    xid,             // NVRM: Xid (PCI:...): N, ...
    fallen_off_bus,  // NVRM: GPU at ... has fallen off the bus (no Xid printed)
    dmar_fault,      // Intel VT-d: DMAR: [DMA Write] Request device [...] fault addr ...
    amd_vi_fault,    // AMD IOMMU: AMD-Vi: Event logged [IO_PAGE_FAULT ...]
    pcie_aer,        // pcieport ...: AER: ... error received / PCIe Bus Error: severity=...
    sxid,            // nvidia-nvswitchN: SXid (PCI:...): N, ...: an NVSwitch's error, not a GPU's
};

// How bad a PCIe AER error is, as the kernel's "severity=" names it.
enum class AerSeverity {
    corrected,             // "Corrected": the link retried; data intact, but a link degrading
    uncorrected_nonfatal,  // "Uncorrected (Non-Fatal)": a transaction was lost
    uncorrected_fatal,     // "Uncorrected (Fatal)": the link is unreliable; the device is reset
};

// One AER report: the kernel prints it as a block of lines from the port that received it
// and the device that had the error (docs/driver-facts.md, "PCIe AER in the kernel log").
struct AerReport {
    AerSeverity severity = AerSeverity::corrected;
    std::string layer;                // "Physical Layer", "Data Link Layer", "Transaction Layer"
    std::vector<std::string> errors;  // the status bits' names: "RxErr", "CmpltTO", "ACSViol"
    std::optional<PciAddress> port;   // the root or downstream port that reported it

    friend bool operator==(const AerReport&, const AerReport&) = default;
};

// One NVSwitch error number on one switch. The driver prints each error as several lines
// ("Data {...}", "Fatal, Link 48 LTSSM Fault Up", "Severity 1 Engine instance ..."); only the
// one with the fatal/non-fatal word counts as an error (docs/driver-facts.md, "SXid").
struct SxidReport {
    int number = 0;
    std::optional<bool> fatal;  // "Fatal" / "Non-fatal"; unknown where no line said
    std::vector<int> links;     // the switch ports named "Link N", each once, in order seen
    std::string description;    // the words after "Link N": "LTSSM Fault Up"

    friend bool operator==(const SxidReport&, const SxidReport&) = default;
};

struct KernelEvent {
    KernelEventKind kind = KernelEventKind::xid;
    std::optional<PciAddress> device;  // the device the line names, if it names one
    std::optional<int> xid;            // for kind xid
    std::string line;                  // the first line seen, prefixes removed
    int count = 1;                     // lines of this kind, device and xid; SXid errors
    int suppressed = 0;                // "N callbacks suppressed" that followed IOMMU faults
    std::optional<AerReport> aer;      // for kind pcie_aer: the first report of the group
    std::optional<SxidReport> sxid;    // for kind sxid: what the group's lines said

    friend bool operator==(const KernelEvent&, const KernelEvent&) = default;
};

}  // namespace peergate::model
