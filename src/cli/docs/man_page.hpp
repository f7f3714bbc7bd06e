// SPDX-License-Identifier: Apache-2.0
// One man(7) page per command, from its --help text (docs/packaging.md).
#pragma once

#include "cli/docs/cli_reference.hpp"

#include <string>

namespace peergate::cli::docs {

// The page of `command`; `program` is the reference of peergate itself, whose global options
// every command accepts, and `version` goes in the page's footer ("peergate 0.1.0").
std::string man_page(const CommandReference& command,
                     const CommandReference& program,
                     const std::string& version);

// `text` as roff body text: backslashes escaped, and a line that would start with a control
// character ('.' or '\'') guarded, so no help text can become a request.
std::string roff_text(const std::string& text);

}  // namespace peergate::cli::docs
