// SPDX-License-Identifier: Apache-2.0
// Slurm gres.conf lines for `peergate export gres` (docs/ecosystem.md §3.1): one line per GPU of
// the node, in NVML index order, with Type= (without it Slurm 22.05's cons_tres ignores
// Links) and Links= from the NV# counts of nvidia-smi topo -m, on AutoDetect=off lines (NVML
// autodetection counts no NVLinks through an NVSwitch, and a mismatch drains the node).
#pragma once

#include "report/exports/facts.hpp"

#include <string>
#include <string_view>

namespace peergate::report::exports {

// Every GPU of the node, whatever --gpus examined: Links= must have one entry per GPU.
std::string export_gres(const ExportFacts& facts);

// A GPU's Type=: its name in lower case with '_' for spaces, without the vendor ("NVIDIA
// H100 80GB HBM3" gives "h100_80gb_hbm3"), a substring of what Slurm's NVML autodetection
// names it, as Slurm requires when both are in use.
std::string gres_type(std::string_view gpu_name);

}  // namespace peergate::report::exports
