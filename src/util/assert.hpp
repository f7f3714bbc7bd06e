// SPDX-License-Identifier: Apache-2.0
// Programmer-error checks. Never used for user input: those get an Error.
#pragma once

namespace peergate::util {
[[noreturn]] void assertion_failed(const char* expr, const char* file, int line);
}  // namespace peergate::util

#define PEERGATE_ASSERT(expr) \
    ((expr) ? static_cast<void>(0) : ::peergate::util::assertion_failed(#expr, __FILE__, __LINE__))
