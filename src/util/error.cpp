// SPDX-License-Identifier: Apache-2.0
#include "util/error.hpp"

namespace peergate::util {

std::string_view to_string(ErrorCode code) {
    switch (code) {
        case ErrorCode::invalid_input:
            return "invalid_input";
        case ErrorCode::not_found:
            return "not_found";
        case ErrorCode::unavailable:
            return "unavailable";
        case ErrorCode::timeout:
            return "timeout";
        case ErrorCode::io:
            return "io";
        case ErrorCode::internal:
            return "internal";
    }
    return "internal";
}

}  // namespace peergate::util
