// SPDX-License-Identifier: Apache-2.0
// What the host says of its CPUs' kind: the kernel's architecture name and /proc/cpuinfo's
// vendor, family and model, as the kernel writes them. NCCL's topology file carries them on
// each <cpu> (docs/export.md, nccl-topo); what was not read stays empty.
#pragma once

#include <optional>
#include <string>

namespace peergate::model {

struct CpuIdentity {
    std::string arch;           // uname's machine: "x86_64", "aarch64", "ppc64le"; "" unknown
    std::string vendor;         // cpuinfo's vendor_id: "GenuineIntel", "AuthenticAMD"; "" unknown
    std::optional<int> family;  // cpuinfo's "cpu family" (25 for AMD Zen 3 and 4)
    std::optional<int> model;   // cpuinfo's "model" (143 for Sapphire Rapids)

    friend bool operator==(const CpuIdentity&, const CpuIdentity&) = default;
};

}  // namespace peergate::model
