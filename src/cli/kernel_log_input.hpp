// SPDX-License-Identifier: Apache-2.0
// Where the doctor's kernel log comes from: --kernel-log FILE or - (stdin), the simulated
// machine's log, or on a live host `dmesg` (which may need root: then it says so).
#pragma once

#include "cli/invocation.hpp"

#include <string>

namespace peergate::cli {

struct KernelLogText {
    std::string text;
    std::string source;  // "FILE", "stdin", "dmesg", or why nothing was read
};

KernelLogText read_kernel_log(const Invocation& inv, const std::string& option);

}  // namespace peergate::cli
