// SPDX-License-Identifier: Apache-2.0
// NVIDIA's Xid catalogue as data: what each Xid a multi-GPU box can log means, how bad it
// is, and what to do. Meanings from "Analyzing Xid Errors with the Xid Catalog"
// (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, Ampere and newer) and,
// for numbers it now lists as unused on those GPUs (61), the older catalogue ("Xid and
// SXid Errors with the Xid Catalog for older GPUs", docs.nvidia.com/deploy/xid-errors/
// archive/index.html); checked 2026-12-03. Xid 94 and 95 lines name the unit ("Contained:
// SM (0x1)"), so they are not called ECC errors alone. Xid 154's severity is the action
// its line names (policy/doctor/kernel_findings.cpp). SXids are the NVSwitch's, not here. Severity:
// error where the GPU or its links cannot be trusted until reset or repaired, warning for what ends
// one application or asks for a reset when convenient, info for what only summarises or reports
// another event.
#pragma once

#include "model/finding.hpp"

#include <span>
#include <string_view>

namespace peergate::policy::doctor {

struct XidMeaning {
    int xid;
    model::Severity severity;
    std::string_view meaning;
    std::string_view remedy;
};

// The catalogue's entry for `xid`; nullptr for a number it does not describe.
const XidMeaning* xid_meaning(int xid);

// Every entry, by number.
std::span<const XidMeaning> xid_catalogue();

}  // namespace peergate::policy::doctor
