// SPDX-License-Identifier: Apache-2.0
#include "util/assert.hpp"

#include <cstdio>
#include <cstdlib>

namespace peergate::util {

void assertion_failed(const char* expr, const char* file, int line) {
    std::fprintf(stderr, "peergate: assertion failed: %s (%s:%d)\n", expr, file, line);
    std::abort();
}

}  // namespace peergate::util
