// SPDX-License-Identifier: Apache-2.0
#include "util/expected.hpp"

#include <cstdio>

namespace peergate::util {

void expected_bad_access(const Error& error) {
    // A programmer error: value() on a failed Expected. Abort with the reason.
    std::fprintf(stderr,
                 "peergate: internal error: value() of a failed result: %s\n",
                 error.message.c_str());
    std::abort();
}

}  // namespace peergate::util
