// SPDX-License-Identifier: Apache-2.0
#include "policy/gate/node_usability.hpp"

#include <fmt/format.h>

namespace peergate::policy::gate {

namespace {

// What to do about a cuInit status, in the words an operator acts on.
std::string cuda_init_remedy(int status) {
    switch (status) {
        case 802:  // CUDA_ERROR_SYSTEM_NOT_READY
            return "the NVSwitch fabric manager has not registered the GPUs: start "
                   "nvidia-fabricmanager (systemctl start nvidia-fabricmanager) and wait for "
                   "nvidia-smi -q to show the fabric state Completed";
        case 100:  // CUDA_ERROR_NO_DEVICE
            return "the child would see no CUDA device: check CUDA_VISIBLE_DEVICES and that the "
                   "nvidia kernel module is loaded";
        case 803:  // CUDA_ERROR_SYSTEM_DRIVER_MISMATCH
            return "the CUDA driver library and the kernel module are different versions: "
                   "reload the module or reboot after the driver update";
        default:
            return "check nvidia-smi and the kernel log (NVRM Xid) for the GPU's state";
    }
}

}  // namespace

NodeUsability node_usability(const GateInput& input) {
    if (!input.cuda_init_failure) {
        return NodeUsability{};
    }
    const auto& failure = *input.cuda_init_failure;
    return NodeUsability{
        .usable = false,
        .rule = std::string(kCudaUnavailableRule),
        .reason = fmt::format("the CUDA driver is installed but does not initialise ({}), so no "
                              "CUDA program can start here; {}",
                              failure.detail,
                              cuda_init_remedy(failure.status))};
}

}  // namespace peergate::policy::gate
