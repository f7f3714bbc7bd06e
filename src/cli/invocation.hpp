// SPDX-License-Identifier: Apache-2.0
// What every command receives: the global options as given, and the use cases' context
// (the environment as a value, the resolved seams, and how to print).
#pragma once

#include "pipeline/context.hpp"

#include <string>

namespace peergate::cli {

// Exit statuses shared by the commands (docs/contracts.md gives each command's meaning).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;  // vetoed, data lost, problems found
inline constexpr int kExitError = 2;     // unreadable, inconclusive, usage error
// gate only: no CUDA program can start on this node (docs/gate-rules.md §2, cuda_unavailable),
// told apart from a P2P veto (1) so that a launcher can send its job elsewhere.
inline constexpr int kExitNodeUnusable = 3;

struct GlobalOptions {
    std::string nvml_lib;
    std::string cuda_lib;
    std::string nvidia_smi;
    std::string host_root;
    std::string simulate;
    bool json = false;
    bool no_color = false;
    bool quiet = false;
    bool verbose = false;
};

using pipeline::Output;
using pipeline::print_error;

// A command's view: the context every use case takes, and the flags it was built from.
struct Invocation : pipeline::Context {
    GlobalOptions options;
};

}  // namespace peergate::cli
