// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_tier.hpp"

#include <fmt/format.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

#include "sources/nvml/nvml_api.hpp"
#include "sources/nvml/nvml_calls.hpp"
#include "sources/nvml/nvml_session.hpp"
#include "sources/nvml/nvml_topology.hpp"
#include "util/dynamic_library.hpp"

namespace peergate::nvml {

namespace {

// What the caller and the worker share. The worker may outlive the caller (abandoned),
// so everything it touches lives here, by shared_ptr; no lock is held across NVML.
struct Shared {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    std::optional<NvmlTierResult> result;
    // Never dlclose'd while a worker may be inside it: the worker leaves its library here,
    // so the handle dies with the last owner of this state, after the worker returned.
    std::optional<util::DynamicLibrary> library;
};

std::string seconds_text(std::chrono::milliseconds limit) {
    return limit.count() % 1000 == 0 ? fmt::format("{} s", limit.count() / 1000)
                                     : fmt::format("{} ms", limit.count());
}

NvmlTierResult read_with(const util::DynamicLibrary& library, const NvmlTierOptions& options) {
    auto api = load_nvml_api(library);
    if (!api) {
        return NvmlTierResult{util::unexpected(util::ErrorCode::unavailable, api.error().message), 0};
    }
    auto session = NvmlSession::open(*api);
    if (!session) {
        return NvmlTierResult{util::unexpected(session.error()), 1};
    }
    NvmlCalls calls(*session, options.host_root);
    auto topology = read_nvml_topology(calls);
    if (topology) {
        topology->provenance = library.path();
    }
    return NvmlTierResult{std::move(topology), calls.count() + 1};
}

void work(const std::shared_ptr<Shared>& shared, const NvmlTierOptions& options) {
    auto library = util::DynamicLibrary::open_first(options.libraries);
    NvmlTierResult result{util::unexpected(util::ErrorCode::unavailable, ""), 0};
    if (!library) {
        result.topology = util::unexpected(util::ErrorCode::not_found,
                                           "NVML is not available: " + library.error().message);
    } else {
        result = read_with(*library, options);  // the session ends here, inside the library
    }
    const std::lock_guard lock(shared->mutex);
    if (library) {
        shared->library = std::move(*library);
    }
    shared->result = std::move(result);
    shared->done = true;
    shared->done_cv.notify_all();
}

}  // namespace

NvmlTierResult read_nvml_tier(const NvmlTierOptions& options) {
    auto shared = std::make_shared<Shared>();
    work(shared, options);
    return std::move(*shared->result);
}

NvmlTierResult run_nvml_tier(const NvmlTierOptions& options) {
    auto shared = std::make_shared<Shared>();
    try {
        std::thread(work, shared, options).detach();
    } catch (const std::system_error& e) {  // std::thread's one way to fail
        return NvmlTierResult{util::unexpected(util::ErrorCode::internal,
                                               std::string("cannot start the NVML worker: ") + e.what()),
                              0};
    }
    std::unique_lock lock(shared->mutex);
    if (!shared->done_cv.wait_for(lock, options.watchdog, [&] { return shared->done; })) {
        return NvmlTierResult{
            util::unexpected(util::ErrorCode::timeout,
                             "NVML did not answer within " + seconds_text(options.watchdog)),
            0};
    }
    return std::move(*shared->result);
}

}  // namespace peergate::nvml
