// SPDX-License-Identifier: Apache-2.0
// Where the doctor's kernel log comes from: --kernel-log FILE or - (stdin), the simulated
// machine's log, or on a live host `dmesg` (which may need root: then it says so).
#pragma once

#include "util/env_map.hpp"
#include "util/seams.hpp"

#include <cstdint>
#include <string>

namespace peergate::sources::host {

struct KernelLogText {
    std::string text;
    std::string source;  // "FILE", "stdin", "dmesg", or why nothing was read
    // stdin: what came before the last kLargestKernelLog bytes, read and not kept.
    std::uint64_t dropped_bytes = 0;
};

// `option` is --kernel-log's value ("" when not given); `env` is what dmesg runs with.
KernelLogText read_kernel_log(const util::Seams& seams,
                              const util::EnvMap& env,
                              const std::string& option);

}  // namespace peergate::sources::host
