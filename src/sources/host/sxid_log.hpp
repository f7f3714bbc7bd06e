// SPDX-License-Identifier: Apache-2.0
// NVSwitch errors in the kernel log. The NVSwitch driver prints each error as a few lines
// that share one number and switch:
//     nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Fatal, Link 63 LTSSM Fault Up
//     nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Severity 1 Engine instance 63 ...
//     nvidia-nvswitch0: SXid (PCI:0000:05:00.0): 20034, Data {0x10000000, ...}
// The number space is the switch's, not a GPU's Xid catalogue (docs/driver-facts.md,
// "SXid: NVSwitch errors"). Pure.
#pragma once

#include "model/kernel_event.hpp"

#include <optional>
#include <string_view>

namespace peergate::sources::host {

// The event one SXid line is part of; count 1 for the line that says "Fatal"/"Non-fatal"
// (the error itself), 0 for its Data and Severity lines. nullopt for any other line.
std::optional<model::KernelEvent> read_sxid_line(std::string_view line);

// Adds what `from` said to its group's report: a fatal word wins over a non-fatal one,
// links are kept once each (at most 64), the first description stays.
void merge_sxid(model::SxidReport& into, const model::SxidReport& from);

}  // namespace peergate::sources::host
