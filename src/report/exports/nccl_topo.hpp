// SPDX-License-Identifier: Apache-2.0
// NCCL's topology file for `peergate export nccl-topo`, the XML that NCCL_TOPO_FILE names
// (and NCCL_TOPO_DUMP_FILE writes): <system version="1">, one <cpu numaid=...> per NUMA node,
// and under it the PCI path NCCL itself builds from sysfs down to each GPU's and each NIC's
// <pci>. The PCI
// tree is what NCCL cannot see in a VM or a container with a partial /sys; the GPUs' own
// facts (their <gpu> index, compute capability, NVLinks) are left for NCCL to read from NVML
// at init, so the file cannot show NCCL an NVLink that has since gone down. Written in the
// subset of XML NCCL's reader takes: no prolog, no comments (older releases stop at them),
// double-quoted values without escapes.
#pragma once

#include "report/exports/facts.hpp"

#include <string>
#include <vector>

namespace peergate::report::exports {

// The file for the GPUs examined. An attribute peergate could not read is left out: NCCL
// fills a missing attribute from the sysfs and NVML of the host it runs on, as it does for
// its own detection. A GPU left out (nccl_topo_left_out) is detected by NCCL itself.
std::string export_nccl_topo(const ExportFacts& facts);

// The examined GPUs and the NICs the file leaves out, each with why: "GPU 2: ...".
std::vector<std::string> nccl_topo_left_out(const ExportFacts& facts);

// The keys of `facts.bus_renames` that name no device or port of the file.
std::vector<model::PciAddress> nccl_topo_unused_renames(const ExportFacts& facts);

}  // namespace peergate::report::exports
