// SPDX-License-Identifier: Apache-2.0
// Reads an NCCL topology file (NCCL_TOPO_FILE, NCCL_TOPO_DUMP_FILE's output) the way NCCL's
// own reader does (src/graph/xml.cc): elements <name attr="value">, </name> and <name .../>
// separated by spaces and line breaks, <!-- comments -->, no escapes; <system version="1">
// holding <cpu>, <cpu> holding <pci> and <nic>, <pci> holding <pci>, <gpu>, <nic> and
// <pcilink>, <gpu> holding <nvlink> and <c2c>. An element elsewhere is skipped whole, as NCCL
// skips it. What NCCL would refuse (a missing quote, a mismatched close, a name or value of
// 255 characters or more, another version) is an error that says where.
#pragma once

#include "model/nccl_topo_file.hpp"
#include "util/expected.hpp"

#include <string_view>
#include <vector>

namespace peergate::sources::nccl {

// The <gpu> elements and their NVLinks, in file order.
util::Expected<std::vector<model::NcclTopoGpu>> parse_nccl_topo_xml(std::string_view text);

}  // namespace peergate::sources::nccl
