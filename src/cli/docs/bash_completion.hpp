// SPDX-License-Identifier: Apache-2.0
// The bash completion script, from the command line's reference (docs/packaging.md).
#pragma once

#include "cli/docs/cli_reference.hpp"

#include <string>

namespace peergate::cli::docs {

// A script for /usr/share/bash-completion/completions/peergate: completes commands, options
// (the global ones after the command name too, as the program accepts them), the values an
// option or argument allows, the built-in machines after --simulate, and file names.
std::string bash_completion(const CommandReference& program);

}  // namespace peergate::cli::docs
