// SPDX-License-Identifier: Apache-2.0
// A directory only this user can write, made or verified before anything in it is trusted
// (docs/security.md): --simulate's host roots live in one under $TMPDIR, where another user
// could otherwise have made it first and planted links in it.
#pragma once

#include "util/expected.hpp"

#include <string>

namespace peergate::util {

// Creates `path` with mode 0700 when absent (its parent must exist), then checks what is
// there, without following a link: a directory, owned by the effective user, that neither
// group nor others may write in (one made by an older peergate with mode 0755 still serves).
// Anything else is an error saying what was found and what to do; nothing is changed in that case.
Expected<void> make_private_directory(const std::string& path);

}  // namespace peergate::util
