// SPDX-License-Identifier: Apache-2.0
// Tier 1 as one call: load the library, open a session, read the matrix, all on a worker
// thread behind a watchdog, because NVML calls cannot be cancelled (docs/driver-facts.md). The
// doctor also records the links and P2P status in that session: one nvmlInit, one watchdog.
#pragma once

#include "model/topology.hpp"
#include "sources/nvml/nvml_record.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace peergate::nvml {

struct NvmlTierOptions {
    std::vector<std::string> libraries{"libnvidia-ml.so.1", "libnvidia-ml.so"};
    std::string host_root = "/";                 // sysfs for the NVSwitch PCI-class fallback
    std::chrono::milliseconds watchdog{10'000};  // past it the worker is abandoned
    bool with_record = false;       // also record every GPU's links and P2P status (the doctor)
    std::string simulated_machine;  // --simulate's machine file, for the simulated NVML
};

struct NvmlTierResult {
    util::Expected<model::Topology> topology;  // the error is the "no verdict" reason
    std::uint64_t calls = 0;                   // NVML calls made (nvmlInit_v2 included)
    std::optional<model::Topology> lone_gpu;   // NVML saw exactly one GPU: 1x1, no verdict
    // With options.with_record: what nvml_record.hpp records, read in the same session (its
    // topology is the tier's), or why it could not be; without, an error saying so.
    util::Expected<NvmlRecord> record =
        util::unexpected(util::ErrorCode::unavailable, "not recorded");
};

// Runs the tier on a detached worker and waits at most options.watchdog. Past it the
// answer is "NVML did not answer within 10 s" (code timeout); the worker and the library
// it is inside stay alive, abandoned, so the caller and the process can move on.
NvmlTierResult run_nvml_tier(const NvmlTierOptions& options);

// The same work on the calling thread, without a watchdog (for the worker and benches).
NvmlTierResult read_nvml_tier(const NvmlTierOptions& options);

}  // namespace peergate::nvml
