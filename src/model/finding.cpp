// SPDX-License-Identifier: Apache-2.0
#include "model/finding.hpp"

namespace peergate::model {

std::string_view to_string(Severity severity) {
    switch (severity) {
        case Severity::error:
            return "error";
        case Severity::warning:
            return "warning";
        case Severity::info:
            return "info";
    }
    return "info";
}

}  // namespace peergate::model
