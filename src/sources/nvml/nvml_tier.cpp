// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_tier.hpp"

#include "sources/nvml/nvml_api.hpp"
#include "sources/nvml/nvml_calls.hpp"
#include "sources/nvml/nvml_session.hpp"
#include "sources/nvml/nvml_topology.hpp"
#include "sources/nvml/nvml_worker.hpp"
#include "util/dynamic_library.hpp"

#include <memory>
#include <optional>

namespace peergate::nvml {

namespace {

// No session: neither the matrix nor the record, for the same reason.
NvmlTierResult failed_tier(const util::Error& error, std::uint64_t calls) {
    NvmlTierResult failed{util::unexpected(error), calls};
    failed.record = util::unexpected(error);
    return failed;
}

NvmlTierResult read_with(const util::DynamicLibrary& library, const NvmlTierOptions& options) {
    choose_simulated_machine(library, options.simulated_machine);
    auto api = load_nvml_api(library);
    if (!api) {
        return failed_tier(util::Error{util::ErrorCode::unavailable, api.error().message}, 0);
    }
    auto session = NvmlSession::open(*api);
    if (!session) {
        return failed_tier(session.error(), 1);
    }
    NvmlCalls calls(*session, options.host_root);
    std::optional<model::Topology> lone_gpu;
    auto topology = read_nvml_topology(calls, &lone_gpu);
    if (topology) {
        topology->provenance = library.path();
    }
    if (lone_gpu) {
        lone_gpu->provenance = library.path();
    }
    NvmlTierResult result{std::move(topology), 0, std::move(lone_gpu)};
    if (options.with_record) {
        result.record = read_nvml_record(calls, false);
        if (result.record && result.topology) {
            result.record->topology = *result.topology;
        }
    }
    result.calls = calls.count() + 1;
    return result;
}

// The worker writes here; shared, because an abandoned worker outlives the caller.
using Slot = std::shared_ptr<std::optional<NvmlTierResult>>;

NvmlJob job_into(const Slot& slot, const NvmlTierOptions& options) {
    return [slot, options](const util::DynamicLibrary& library) {
        *slot = read_with(library, options);
    };
}

NvmlTierResult result_of(util::Expected<void> ran, const Slot& slot) {
    if (!ran) {
        return failed_tier(ran.error(), 0);
    }
    return std::move(**slot);
}

}  // namespace

NvmlTierResult read_nvml_tier(const NvmlTierOptions& options) {
    auto slot = std::make_shared<std::optional<NvmlTierResult>>();
    return result_of(run_nvml_job_here(options.libraries, job_into(slot, options)), slot);
}

NvmlTierResult run_nvml_tier(const NvmlTierOptions& options) {
    auto slot = std::make_shared<std::optional<NvmlTierResult>>();
    return result_of(
        run_on_nvml_worker(options.libraries, options.watchdog, job_into(slot, options)), slot);
}

}  // namespace peergate::nvml
