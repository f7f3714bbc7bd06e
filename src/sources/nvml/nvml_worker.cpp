// SPDX-License-Identifier: Apache-2.0
#include "sources/nvml/nvml_worker.hpp"

#include <fmt/format.h>

#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

namespace peergate::nvml {

namespace {

// What the caller and the worker share. The worker may outlive the caller (abandoned),
// so everything it touches lives here, by shared_ptr; no lock is held across NVML.
struct Shared {
    std::mutex mutex;
    std::condition_variable done_cv;
    bool done = false;
    util::Expected<void> outcome;
    // Never dlclose'd while a worker may be inside it: the worker leaves its library here,
    // so the handle dies with the last owner of this state, after the worker returned.
    std::optional<util::DynamicLibrary> library;
};

std::string seconds_text(std::chrono::milliseconds limit) {
    return limit.count() % 1000 == 0 ? fmt::format("{} s", limit.count() / 1000)
                                     : fmt::format("{} ms", limit.count());
}

void work(const std::shared_ptr<Shared>& shared,
          const std::vector<std::string>& libraries,
          const NvmlJob& job) {
    auto library = util::DynamicLibrary::open_first(libraries);
    util::Expected<void> outcome;
    if (!library) {
        outcome = util::unexpected(util::ErrorCode::not_found,
                                   "NVML is not available: " + library.error().message);
    } else {
        job(*library);  // any session the job opens ends here, inside the library
    }
    const std::lock_guard lock(shared->mutex);
    if (library) {
        shared->library = std::move(*library);
    }
    shared->outcome = std::move(outcome);
    shared->done = true;
    shared->done_cv.notify_all();
}

}  // namespace

util::Expected<void> run_nvml_job_here(const std::vector<std::string>& libraries,
                                       const NvmlJob& job) {
    auto shared = std::make_shared<Shared>();
    work(shared, libraries, job);
    return std::move(shared->outcome);
}

util::Expected<void> run_on_nvml_worker(const std::vector<std::string>& libraries,
                                        std::chrono::milliseconds watchdog,
                                        NvmlJob job) {
    auto shared = std::make_shared<Shared>();
    try {
        std::thread(work, shared, libraries, std::move(job)).detach();
    } catch (const std::system_error& e) {  // std::thread's one way to fail
        return util::unexpected(util::ErrorCode::internal,
                                std::string("cannot start the NVML worker: ") + e.what());
    }
    std::unique_lock lock(shared->mutex);
    if (!shared->done_cv.wait_for(lock, watchdog, [&] { return shared->done; })) {
        return util::unexpected(util::ErrorCode::timeout,
                                "NVML did not answer within " + seconds_text(watchdog));
    }
    return std::move(shared->outcome);
}

}  // namespace peergate::nvml
