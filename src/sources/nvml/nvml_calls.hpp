// SPDX-License-Identifier: Apache-2.0
// A counting front on one NVML session: every call of a discovery goes through here, so
// the benchmark can report how many NVML calls one matrix costs.
#pragma once

#include "sources/nvml/nvml_session.hpp"
#include "util/expected.hpp"

#include <cstdint>
#include <string>
#include <utility>

namespace peergate::nvml {

class NvmlCalls {
public:
    NvmlCalls(const NvmlSession& session, std::string host_root)
        : api_(session.api()), host_root_(std::move(host_root)) {}

    // Calls `fn(args...)` and counts it.
    template <typename Fn, typename... Args>
    nvmlReturn_t operator()(Fn* fn, Args... args) {
        ++count_;
        return fn(args...);
    }

    // An error "no verdict" for a call that failed: the call, the code and NVML's text.
    util::Unexpected failed(nvmlReturn_t result, const char* call) const {
        return util::unexpected(util::ErrorCode::unavailable,
                                describe_nvml_error(api_, result, call));
    }

    const NvmlApi& api() const { return api_; }

    const std::string& host_root() const { return host_root_; }

    std::uint64_t count() const { return count_; }

private:
    const NvmlApi& api_;
    std::string host_root_;  // sysfs is read under it for the PCI class fallback
    std::uint64_t count_ = 0;
};

}  // namespace peergate::nvml
