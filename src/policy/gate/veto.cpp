// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/veto.hpp"

#include <fmt/format.h>

namespace peergate::policy::gate {

bool bare_metal_translating(const model::HostFacts& host) {
    return model::silent_drop_risk(host).risk == model::SilentDropRisk::present;
}

std::string iommu_suffix(const model::HostFacts& host) {
    const auto risk = model::silent_drop_risk(host);
    if (risk.risk == model::SilentDropRisk::present) {
        return kIommuSuffix;
    }
    // An unreadable cpuinfo is not proof of bare metal, nor of a guest: say so, not either.
    return risk.basis == model::SilentDropBasis::hypervisor_unknown ? kIommuUnknownHostSuffix : "";
}

std::string pair_veto(int a, int b, const model::LinkLabel& label) {
    return fmt::format("GPU {} to GPU {} is {}, not NVLink", a, b, label.to_token());
}

std::string id_list(const std::vector<int>& ids) {
    return fmt::format("{}", fmt::join(ids, ", "));
}

}  // namespace peergate::policy::gate
