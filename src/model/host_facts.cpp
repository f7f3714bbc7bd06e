// SPDX-License-Identifier: Apache-2.0
#include "model/host_facts.hpp"

namespace peergate::model {

std::string_view to_string(IommuMode mode) {
    switch (mode) {
        case IommuMode::off:
            return "off";
        case IommuMode::identity:
            return "identity";
        case IommuMode::translating:
            return "translating";
        case IommuMode::unknown:
            return "unknown";
    }
    return "unknown";
}

}  // namespace peergate::model
