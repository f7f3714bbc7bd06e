// SPDX-License-Identifier: Apache-2.0
// The hardware families of `peergate export prometheus`: each examined GPU's NVLinks and their
// error counters (prometheus_nvlink.hpp), its NVSwitch fabric and MIG mode, its PCIe link and
// the AER counters above it, and the NICs beside it.
#pragma once

#include "report/exports/facts.hpp"

#include <string>

namespace peergate::report::exports {

std::string prometheus_hardware_families(const ExportFacts& facts);

}  // namespace peergate::report::exports
