// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/veto.hpp"

#include <fmt/format.h>

namespace peergate::policy::gate {

bool bare_metal_translating(const model::HostFacts& host) {
    // An unreadable cpuinfo is not proof of bare metal: the suffix claims it, so say nothing.
    return host.iommu == model::IommuMode::translating && host.hypervisor.has_value() &&
           !*host.hypervisor;
}

std::string iommu_suffix(const model::HostFacts& host) {
    return bare_metal_translating(host) ? kIommuSuffix : "";
}

std::string pair_veto(int a, int b, const model::LinkLabel& label) {
    return fmt::format("GPU {} to GPU {} is {}, not NVLink", a, b, label.to_token());
}

std::string id_list(const std::vector<int>& ids) {
    return fmt::format("{}", fmt::join(ids, ", "));
}

}  // namespace peergate::policy::gate
