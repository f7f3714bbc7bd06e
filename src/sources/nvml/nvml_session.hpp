// SPDX-License-Identifier: Apache-2.0
// One NVML session: nvmlInit_v2 on open, nvmlShutdown on destruction, and only after an
// init that succeeded (an extra shutdown answers UNINITIALIZED; docs/style.md 23).
#pragma once

#include "sources/nvml/nvml_api.hpp"
#include "util/expected.hpp"

namespace peergate::nvml {

class NvmlSession {
public:
    // Calls nvmlInit_v2; the error carries nvmlErrorString's text (code unavailable).
    static util::Expected<NvmlSession> open(const NvmlApi& api);

    NvmlSession(NvmlSession&& other) noexcept;
    NvmlSession& operator=(NvmlSession&& other) noexcept;
    NvmlSession(const NvmlSession&) = delete;
    NvmlSession& operator=(const NvmlSession&) = delete;
    ~NvmlSession();

    const NvmlApi& api() const { return *api_; }

private:
    explicit NvmlSession(const NvmlApi& api) : api_(&api) {}

    const NvmlApi* api_;  // the table outlives the session (both live in the tier's state)
    bool initialized_ = true;
};

}  // namespace peergate::nvml
