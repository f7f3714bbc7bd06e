// SPDX-License-Identifier: Apache-2.0
#include "model/machine_identity.hpp"

namespace peergate::model {

std::vector<std::string> identity_differences(const MachineIdentity& cached,
                                              const MachineIdentity& now) {
    std::vector<std::string> fields;
    if (cached.driver_version != now.driver_version) {
        fields.emplace_back("driver_version");
    }
    if (cached.gpu_uuids != now.gpu_uuids) {
        fields.emplace_back("gpu_uuids");
    }
    if (cached.pci_bus_ids != now.pci_bus_ids) {
        fields.emplace_back("pci_bus_ids");
    }
    if (cached.iommu != now.iommu) {
        fields.emplace_back("iommu");
    }
    if (cached.kernel_cmdline != now.kernel_cmdline) {
        fields.emplace_back("kernel_cmdline");
    }
    if (cached.boot_id != now.boot_id) {
        fields.emplace_back("boot_id");
    }
    return fields;
}

}  // namespace peergate::model
