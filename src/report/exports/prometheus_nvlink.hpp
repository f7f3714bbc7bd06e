// SPDX-License-Identifier: Apache-2.0
// The NVLink families of `peergate export prometheus`: per examined GPU the links NVML answers
// for and those up; per link its state and its error counters, up or down, with whether this
// run read them (nvlink_links.hpp); and the per-GPU sums, deprecated (issue 35).
#pragma once

#include "report/exports/facts.hpp"

#include <string>

namespace peergate::report::exports {

std::string prometheus_nvlink_families(const ExportFacts& facts);

}  // namespace peergate::report::exports
