// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_session.hpp"

#include <utility>

namespace peergate::nvml {

util::Expected<NvmlSession> NvmlSession::open(const NvmlApi& api) {
    const nvmlReturn_t result = api.nvmlInit_v2();
    if (result != NVML_SUCCESS) {
        return util::unexpected(util::ErrorCode::unavailable,
                                describe_nvml_error(api, result, "nvmlInit_v2"));
    }
    return NvmlSession(api);
}

NvmlSession::NvmlSession(NvmlSession&& other) noexcept
    : api_(other.api_), initialized_(std::exchange(other.initialized_, false)) {}

NvmlSession& NvmlSession::operator=(NvmlSession&& other) noexcept {
    if (this != &other) {
        if (initialized_) {
            api_->nvmlShutdown();
        }
        api_ = other.api_;
        initialized_ = std::exchange(other.initialized_, false);
    }
    return *this;
}

NvmlSession::~NvmlSession() {
    if (initialized_) {
        // Nothing to do with a failed shutdown in a destructor: NVML is going away anyway.
        (void)api_->nvmlShutdown();
    }
}

}  // namespace peergate::nvml
