// SPDX-License-Identifier: Apache-2.0
// Bytes and rates as watch's messages and text print them: decimal units (GB = 10^9 bytes), as
// NVLink and PCIe bandwidths are quoted.
#pragma once

#include <cstdint>
#include <string>

namespace peergate::policy::watch {

// "0 B", "512 B", "3.2 MB", "41.0 GB", "1.20 TB".
std::string bytes_text(std::uint64_t bytes);

// "0 B/s", "12.5 GB/s".
std::string rate_text(double bytes_per_second);

}  // namespace peergate::policy::watch
