// SPDX-License-Identifier: Apache-2.0
// What every use case receives: the environment as a value, the resolved seams, and where
// to print. The command line builds one from its flags; the library and C APIs build one
// from the caller's environment. No use case reads a flag or a global.
#pragma once

#include "util/env_map.hpp"
#include "util/seams.hpp"

#include <cstdio>
#include <string>

namespace peergate::pipeline {

// Where and how a use case prints: results on `out`, progress and errors on `err`.
struct Output {
    bool json = false;
    bool color = false;  // ANSI colour on stdout (a TTY, no --no-color, no NO_COLOR)
    bool quiet = false;
    bool verbose = false;
    bool progress = false;  // stderr is a TTY and neither -q nor --json
    std::FILE* out = stdout;
    std::FILE* err = stderr;
};

struct Context {
    util::EnvMap env;
    util::Seams seams;
    Output output;
};

// Prints "peergate: <message>" on stderr (always, even with --quiet: errors are not chatter).
void print_error(const Output& output, const std::string& message);

}  // namespace peergate::pipeline
