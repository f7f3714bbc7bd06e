// SPDX-License-Identifier: Apache-2.0
// A GPU's Multi-Instance GPU mode as NVML reports it (nvmlDeviceGetMigMode, Ampere and later
// data-center parts). CUDA gives MIG instances no peer access and no IPC, so NVLink and
// NVSwitch carry nothing between them: multi-GPU traffic goes through host memory.
#pragma once

namespace peergate::model {

struct MigMode {
    bool enabled = false;  // the current mode
    bool pending = false;  // the mode after the next GPU reset (or unbind)

    friend bool operator==(const MigMode&, const MigMode&) = default;
};

}  // namespace peergate::model
