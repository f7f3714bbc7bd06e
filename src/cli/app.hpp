// SPDX-License-Identifier: Apache-2.0
// The program: parse the command line, resolve the seams, run one command.
#pragma once

#include "cli/commands.hpp"

#include <CLI/CLI.hpp>

#include <vector>

namespace peergate::cli {

// Builds the whole command line on `app`: the global options bound to `options`, then every
// command. The program parses with it; scripts/cli-docs (the man pages and the completion)
// walks it, so what they document is exactly what --help prints.
std::vector<Command> describe_app(CLI::App& app, GlobalOptions& options);

// main(): returns the process exit status.
int run_main(int argc, char** argv, char** envp);

}  // namespace peergate::cli
