// SPDX-License-Identifier: Apache-2.0
// Where the outside world is: the one struct that names every external thing peergate
// reads. Filled from flags, then PEERGATE_* variables, then defaults (docs/contracts.md "Seams").
#pragma once

#include <string>
#include <vector>

namespace peergate::util {

struct Seams {
    std::vector<std::string> nvml_libraries{"libnvidia-ml.so.1", "libnvidia-ml.so"};
    std::string cuda_library = "libcuda.so.1";
    std::string nvidia_smi = "nvidia-smi";  // a path, or a name looked up on PATH
    std::string host_root = "/";            // /sys and /proc are read under this
    std::string simulated_machine;          // machine file in force under --simulate, else ""
};

}  // namespace peergate::util
