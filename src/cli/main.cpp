// SPDX-License-Identifier: Apache-2.0
#include "cli/app.hpp"

int main(int argc, char** argv, char** envp) {
    return peergate::cli::run_main(argc, argv, envp);
}
