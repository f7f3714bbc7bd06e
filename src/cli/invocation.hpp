// SPDX-License-Identifier: Apache-2.0
// What every command receives: the global options as given, the environment as a value,
// the resolved seams, and how to print.
#pragma once

#include "util/env_map.hpp"
#include "util/seams.hpp"

#include <cstdio>
#include <string>

namespace peergate::cli {

// Exit statuses shared by the commands (DESIGN.md's table gives each command's meaning).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;  // vetoed, data lost, problems found
inline constexpr int kExitError = 2;     // unreadable, inconclusive, usage error

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

struct Output {
    bool json = false;
    bool color = false;  // ANSI colour on stdout (a TTY, no --no-color, no NO_COLOR)
    bool quiet = false;
    bool verbose = false;
    bool progress = false;  // stderr is a TTY and neither -q nor --json
    std::FILE* out = stdout;
    std::FILE* err = stderr;
};

struct Invocation {
    GlobalOptions options;
    util::EnvMap env;
    util::Seams seams;
    Output output;
};

// Prints "peergate: <message>" on stderr (always, even with --quiet: errors are not chatter).
void print_error(const Output& output, const std::string& message);

}  // namespace peergate::cli
