// SPDX-License-Identifier: Apache-2.0
// Where ACS sends a pair's peer traffic (docs/gate-rules.md §5 beyond). Two GPUs below the same
// PCIe port exchange traffic inside the switch, unless a port between them and that shared
// port has ACS P2P request or completion redirect on: then the traffic goes up to the root
// complex (slower, and through the IOMMU). GPUs with no port in common meet at the root
// complex anyway. Pure.
#pragma once

#include "model/finding.hpp"
#include "model/pci_port.hpp"
#include "policy/doctor/doctor.hpp"

#include <optional>
#include <string_view>
#include <vector>

namespace peergate::policy::doctor {

struct AcsPath {
    enum class State { not_shared, off, redirect, unknown };
    State state = State::not_shared;
    std::optional<model::PciAddress> shared;  // the lowest port above both GPUs
    std::optional<model::PciPort> port;       // redirect or unknown: the first such port
};

// "not_shared", "off", "redirect", "unknown".
std::string_view to_string(AcsPath::State state);

// `a` and `b`: the ports above each GPU, nearest first (sources/host/pci_tree.hpp).
AcsPath acs_path(const std::vector<model::PciPort>& a, const std::vector<model::PciPort>& b);

// acs_redirect (warning): the first pair whose traffic ACS sends up to the root complex,
// with the port and its control bits, and how many pairs more.
std::optional<model::Finding> acs_redirect_finding(const DoctorInput& input);

}  // namespace peergate::policy::doctor
