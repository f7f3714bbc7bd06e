// SPDX-License-Identifier: Apache-2.0
// An NCCL log read the way `peergate nccl-log` reads one input: fed whole, then ended.
#pragma once

#include "sources/nccl/nccl_log_parser.hpp"

#include <string_view>

namespace peergate::test {

inline model::NcclLog parse_nccl_log(std::string_view text) {
    sources::nccl::NcclLogParser parser;
    parser.feed(text);
    parser.end_input();
    return parser.result();
}

}  // namespace peergate::test
