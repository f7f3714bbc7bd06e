// SPDX-License-Identifier: Apache-2.0
// What the simulated nvidia-smi prints, in the real tool's layout: tab-separated columns,
// an ANSI-underlined `topo -m` header, " X " on the diagonal, the affinity columns and the
// Legend blocks (see tests/fixtures/topo_m and topo_p2p for the real outputs imitated).
// Pure: machine in, text out; the executable in src/sim/smi/ adds argv and faults.
#pragma once

#include "snapshot/derived.hpp"
#include "snapshot/machine_file.hpp"
#include "util/expected.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace peergate::sim {

// `nvidia-smi topo -m`. `rows` limits the GPU rows printed (a truncated matrix); the
// Legend is printed only when every row is.
std::string render_topo_m(const snapshot::MachineFile& machine, std::size_t rows = SIZE_MAX);

// `nvidia-smi topo -p2p r|w|n|a|p`: the OK/CNS/GNS/TNS/NS/DR/U matrix and its legend.
std::string render_topo_p2p(const snapshot::MachineFile& machine,
                            snapshot::P2pCaps caps,
                            std::size_t rows = SIZE_MAX);

// How `--format=` was given: csv, optionally noheader and nounits.
struct CsvFormat {
    bool header = true;
    bool units = true;
};

// Parses "csv,noheader,nounits"; an error for anything but csv with those options.
util::Expected<CsvFormat> parse_csv_format(const std::string& text);

// `nvidia-smi --query-gpu=FIELDS --format=csv[,noheader][,nounits]`. Known fields: index,
// name, pci.bus_id (gpu_bus_id), uuid, driver_version, memory.total, compute_cap,
// pci.device_id, count. An unknown field is an error naming it, as the real tool's is.
util::Expected<std::string> render_query_gpu(const snapshot::MachineFile& machine,
                                             const std::string& fields,
                                             CsvFormat format,
                                             std::size_t rows = SIZE_MAX);

// `nvidia-smi -L`: "GPU 0: NVIDIA B200 (UUID: GPU-...)".
std::string render_list(const snapshot::MachineFile& machine, std::size_t rows = SIZE_MAX);

// What the real tool prints on stdout when it cannot reach the driver.
inline constexpr const char* kSmiDriverFailure =
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
    "that the latest NVIDIA driver is installed and running.";

}  // namespace peergate::sim
