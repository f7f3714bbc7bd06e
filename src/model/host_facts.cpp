// SPDX-License-Identifier: Apache-2.0
#include "model/host_facts.hpp"

#include <charconv>

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

std::optional<bool> kernel_at_least(std::string_view release, int major, int minor) {
    int have_major = 0;
    int have_minor = 0;
    const char* end = release.data() + release.size();
    const auto first = std::from_chars(release.data(), end, have_major);
    if (first.ec != std::errc() || first.ptr == end || *first.ptr != '.') {
        return std::nullopt;
    }
    if (std::from_chars(first.ptr + 1, end, have_minor).ec != std::errc()) {
        return std::nullopt;
    }
    return have_major != major ? have_major > major : have_minor >= minor;
}

std::string_view to_string(KernelModuleFlavour flavour) {
    return flavour == KernelModuleFlavour::open ? "open" : "proprietary";
}

SilentDropAssessment silent_drop_risk(const HostFacts& host) {
    using enum SilentDropBasis;
    switch (host.iommu) {
        case IommuMode::off:
            return {SilentDropRisk::absent, iommu_off};
        case IommuMode::identity:
            return {SilentDropRisk::absent, iommu_identity};
        case IommuMode::unknown:
            return {SilentDropRisk::unknown, iommu_unknown};
        case IommuMode::translating:
            break;
    }
    if (!host.hypervisor) {
        return {SilentDropRisk::unknown, hypervisor_unknown};
    }
    return *host.hypervisor ? SilentDropAssessment{SilentDropRisk::absent, guest}
                            : SilentDropAssessment{SilentDropRisk::present, translating_bare_metal};
}

}  // namespace peergate::model
