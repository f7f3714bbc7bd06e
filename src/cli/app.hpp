// SPDX-License-Identifier: Apache-2.0
// The program: parse the command line, resolve the seams, run one command.
#pragma once

namespace peergate::cli {

// main(): returns the process exit status.
int run_main(int argc, char** argv, char** envp);

}  // namespace peergate::cli
