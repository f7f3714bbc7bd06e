// SPDX-License-Identifier: Apache-2.0
// The one error type: a code that callers branch on and a message people read.
#pragma once

#include <string>
#include <string_view>

namespace peergate::util {

// What kind of failure; callers branch on this, never on message text.
enum class ErrorCode {
    invalid_input,  // text or arguments that do not say what they must
    not_found,      // a file, binary, library or symbol that is not there
    unavailable,    // a source that exists but cannot answer (driver down, no devices)
    timeout,        // a child process or a worker that did not answer in time
    io,             // a read, write or rename that failed
    internal,       // a bug in peergate
};

// Returns a stable snake_case name for `code`.
std::string_view to_string(ErrorCode code);

struct Error {
    ErrorCode code = ErrorCode::internal;
    std::string message;
    // The failing call's own status (a CUresult, an nvmlReturn_t) where the error came from
    // one and a caller may act on it; 0 otherwise.
    int vendor_status = 0;

    friend bool operator==(const Error&, const Error&) = default;
};

}  // namespace peergate::util
