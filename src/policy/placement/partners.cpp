// SPDX-License-Identifier: Apache-2.0
#include "policy/placement/partners.hpp"

namespace peergate::policy::placement {

PartnerCounter::PartnerCounter(const Problem& problem, const Neighbours& neighbours)
    : p_(problem), nb_(neighbours) {
    for (int v = 0; v < p_.n; ++v) {
        const auto& partners = at(nb_.by_weight, v);
        heaviest_.push_back(partners.empty() ? 0 : p_.w(v, partners.front()));
    }
}

}  // namespace peergate::policy::placement
