// SPDX-License-Identifier: Apache-2.0
// The watchdog every NVML reader runs under: load the library on a detached worker and
// wait at most the watchdog, because NVML calls cannot be cancelled (docs/driver-facts.md).
// The tier and the gather recorder share it, so a hung driver hangs neither.
#pragma once

#include "util/dynamic_library.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace peergate::nvml {

// Work done inside the loaded library. An abandoned worker outlives the caller, so the
// job must own whatever it writes (capture a shared_ptr), never refer to the caller's stack.
using NvmlJob = std::function<void(const util::DynamicLibrary& library)>;

// Opens the first loadable library of `libraries` on a detached worker and runs `job`
// there. Errors: not_found "NVML is not available: ..." (no library; the job did not
// run), timeout "NVML did not answer within 10 s" (the worker and its library stay alive,
// abandoned), internal when no thread can start. On success the job's writes are visible.
util::Expected<void> run_on_nvml_worker(const std::vector<std::string>& libraries,
                                        std::chrono::milliseconds watchdog,
                                        NvmlJob job);

// The same on the calling thread, without a watchdog (for benches and the tier's own
// synchronous entry point).
util::Expected<void> run_nvml_job_here(const std::vector<std::string>& libraries,
                                       const NvmlJob& job);

}  // namespace peergate::nvml
