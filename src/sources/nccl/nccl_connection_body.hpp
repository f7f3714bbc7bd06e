// SPDX-License-Identifier: Apache-2.0
// The reader of a connection line's record body (the text after "NCCL INFO "): which rank
// reaches which over what transport, the line the parser reads most. The other record
// bodies have their readers in nccl_record_bodies.hpp. It returns nullopt for a body of
// another shape; views point into the body, nothing is copied.
#pragma once

#include "model/nccl_log.hpp"

#include <optional>
#include <string_view>

namespace peergate::sources::nccl {

// "Channel 00/0 : 0[0] -> 1[1] via P2P/IPC/read", "Channel 01 : 2[c7000] -> 0[87000]
// [receive] via NET/IB/5/GDRDMA", "Ring 00 : 43 -> 44 [receive] via NET/Socket/0",
// "CollNet 00/0 : 0 [receive] via COLLNET/SHARP/1/GDRDMA", "... via direct shared memory".
struct ConnectionLine {
    int channel = 0;
    std::optional<int> conn_index;
    int src_rank = 0;
    std::optional<int> dst_rank;
    std::string_view src_bracket;  // "0" or "1b000"; empty when the rank had no brackets
    std::string_view dst_bracket;
    model::NcclDirection direction = model::NcclDirection::none;
    model::NcclTransport transport = model::NcclTransport::p2p;
    std::string_view detail;
    // A space stands right before "via": then looks_like_connection(body) holds too.
    bool space_before_via = false;
};

// True when the body starts like a connection line and contains " via": if
// parse_connection then fails, the line is malformed (counted as skipped).
bool looks_like_connection(std::string_view body);
std::optional<ConnectionLine> parse_connection(std::string_view body);

// Bracket contents: a CUDA device ("0".."999") or a bus id ("1b000", "7000").
std::optional<int> bracket_device(std::string_view bracket);

}  // namespace peergate::sources::nccl
