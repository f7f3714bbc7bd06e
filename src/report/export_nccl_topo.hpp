// SPDX-License-Identifier: Apache-2.0
// NCCL's topology file for `peergate export nccl-topo`, the XML that NCCL_TOPO_FILE names
// (and NCCL_TOPO_DUMP_FILE writes): <system version="1">, one <cpu numaid=...> per NUMA node,
// under it the PCI path NCCL itself builds from sysfs, and per GPU a <gpu dev=...> with the
// NVLinks NVML reported. Written in the subset of XML NCCL's reader takes: no prolog, no
// comments (older releases stop at them), double-quoted values without escapes.
#pragma once

#include "report/export_facts.hpp"

#include <string>
#include <vector>

namespace peergate::report {

// The file for the GPUs examined. An attribute peergate could not read is left out: NCCL
// fills a missing attribute from the sysfs and NVML of the host it runs on, as it does for
// its own detection. A GPU left out (nccl_topo_left_out) is detected by NCCL itself.
std::string export_nccl_topo(const ExportFacts& facts);

// The examined GPUs the file leaves out, each with why: "GPU 2: ...".
std::vector<std::string> nccl_topo_left_out(const ExportFacts& facts);

}  // namespace peergate::report
