// SPDX-License-Identifier: Apache-2.0
// Pure reader of `nvidia-smi --query-gpu=index,name,pci.bus_id,uuid --format=csv,noheader`:
// the GPUs' names, bus ids and UUIDs that topo -m does not print.
#pragma once

#include "model/gpu.hpp"
#include "util/expected.hpp"

#include <string_view>
#include <vector>

namespace peergate::sources::smi {

// One GPU per non-empty line; any line that is not four fields with an index and a PCI bus id
// makes the whole listing an error naming the line, and so does a listing with no GPU.
util::Expected<std::vector<model::Gpu>> parse_query_gpu(std::string_view text);

}  // namespace peergate::sources::smi
