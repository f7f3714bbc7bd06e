// SPDX-License-Identifier: Apache-2.0
#include "model/pci_port.hpp"

#include <array>
#include <utility>

namespace peergate::model {

std::string AcsControl::describe() const {
    static constexpr std::array<std::pair<std::uint16_t, const char*>, 7> kNames{{
        {kSourceValidation, "SrcValid"},
        {kTranslationBlocking, "TransBlk"},
        {kRequestRedirect, "ReqRedir"},
        {kCompletionRedirect, "CmpltRedir"},
        {kUpstreamForwarding, "UpstreamFwd"},
        {kEgressControl, "EgressCtrl"},
        {kDirectTranslated, "DirectTrans"},
    }};
    std::string out;
    for (const auto& [bit, name] : kNames) {
        out += (out.empty() ? "" : " ") + std::string(name) + ((bits & bit) != 0 ? "+" : "-");
    }
    return out;
}

}  // namespace peergate::model
