// SPDX-License-Identifier: Apache-2.0
#include "model/finding.hpp"

#include <string>

namespace peergate::model {

std::string Finding::id() const {
    const std::string prefix(model::id(code));
    if (code == FindingCode::xid && xid) {
        return prefix + "_" + std::to_string(*xid);
    }
    if (code == FindingCode::sxid && sxid) {
        return prefix + "_" + std::to_string(*sxid);
    }
    return prefix;
}

}  // namespace peergate::model
