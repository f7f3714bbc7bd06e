// SPDX-License-Identifier: Apache-2.0
// The CPUs' kind under the host root: the architecture from /proc/sys/kernel/arch (Linux 6.1
// and later; on the live host, uname where that file is missing) and the vendor, family and
// model of the first processor in /proc/cpuinfo. Both files are read bounded (HostRoot).
#pragma once

#include "model/cpu_identity.hpp"
#include "sources/host/host_root.hpp"

#include <string_view>

namespace peergate::sources::host {

// What could be read; the rest stays empty (an arm64 cpuinfo names no vendor_id).
model::CpuIdentity read_cpu_identity(const HostRoot& root);

// The vendor, family and model of the first processor block of a cpuinfo text.
model::CpuIdentity parse_cpuinfo_identity(std::string_view cpuinfo);

}  // namespace peergate::sources::host
