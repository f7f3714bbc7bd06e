// SPDX-License-Identifier: Apache-2.0
#include "pipeline/watch_sampler.hpp"

#include "sources/nvml/nvml_api.hpp"
#include "sources/nvml/nvml_record.hpp"
#include "sources/nvml/nvml_session.hpp"
#include "sources/nvml/nvml_throughput.hpp"
#include "util/dynamic_library.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <condition_variable>
#include <ctime>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>

namespace peergate::pipeline {

// What the caller and the worker share; the worker may outlive the caller (abandoned inside
// a driver that stopped answering), so it owns everything it touches through this.
struct TrafficSampler::Shared {
    std::mutex mutex;
    std::condition_variable changed;
    bool stop_requested = false;
    bool finished = false;
    SampledTraffic result;
    std::optional<util::DynamicLibrary> library;  // closed with the last owner, never under a call
};

namespace {

using Clock = std::chrono::steady_clock;
using Shared = TrafficSampler::Shared;

double thread_cpu_seconds() {
    timespec now{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

// The doctor's view of the links (policy/doctor GpuLinks) of the watched GPUs.
std::vector<policy::doctor::GpuLinks> links_of(const nvml::NvmlRecord& record,
                                               const std::vector<model::WatchedGpu>& watched) {
    std::vector<policy::doctor::GpuLinks> out;
    for (const auto& gpu : record.gpus) {
        const bool wanted = std::any_of(watched.begin(), watched.end(), [&](const auto& w) {
            return w.index == gpu.identity.index;
        });
        if (!wanted || !gpu.nvlink_slots) {
            continue;
        }
        policy::doctor::GpuLinks links{
            .gpu = gpu.identity.index, .name = gpu.identity.name, .slots = *gpu.nvlink_slots};
        for (const auto& link : gpu.links) {
            if (!link.active) {
                links.down.push_back(link.link);
                continue;
            }
            links.to_switch += link.to_switch ? 1 : 0;
            links.errors.push_back(model::LinkErrors{.link = link.link, .counts = link.errors});
        }
        out.push_back(std::move(links));
    }
    return out;
}

void fail(Shared& shared, util::Error error) {
    const std::lock_guard lock(shared.mutex);
    shared.result.started = util::unexpected(std::move(error));
}

// Keeps the first and last round and every other one between.
void thin(std::vector<model::CounterRound>& rounds) {
    std::vector<model::CounterRound> kept;
    for (std::size_t r = 0; r < rounds.size(); ++r) {
        if (r % 2 == 0 || r + 1 == rounds.size()) {
            kept.push_back(std::move(rounds[r]));
        }
    }
    rounds = std::move(kept);
}

void publish(Shared& shared, model::CounterRound round) {
    const std::lock_guard lock(shared.mutex);
    shared.result.rounds.push_back(std::move(round));
    if (shared.result.rounds.size() > kMostRounds) {
        thin(shared.result.rounds);
    }
    shared.changed.notify_all();  // the first round: wait_for_first_round
}

// Waits until `next` or a stop request; true when asked to stop.
bool wait_until(Shared& shared, Clock::time_point next) {
    std::unique_lock lock(shared.mutex);
    return shared.changed.wait_until(lock, next, [&] { return shared.stop_requested; });
}

util::Expected<std::vector<nvmlDevice_t>> handles_of(nvml::NvmlCalls& nvml,
                                                     const std::vector<model::WatchedGpu>& gpus) {
    std::vector<nvmlDevice_t> handles;
    for (const auto& gpu : gpus) {
        nvmlDevice_t handle = nullptr;
        const auto rc = nvml(
            nvml.api().nvmlDeviceGetHandleByIndex_v2, static_cast<unsigned>(gpu.index), &handle);
        if (rc != NVML_SUCCESS) {
            return nvml.failed(rc, "nvmlDeviceGetHandleByIndex_v2");
        }
        handles.push_back(handle);
    }
    return handles;
}

// The watched GPUs of `record`; the error names a selected index NVML does not list.
util::Expected<std::vector<model::WatchedGpu>> choose_gpus(const nvml::NvmlRecord& record,
                                                           const std::vector<int>& selected) {
    std::vector<int> indices = selected;
    std::vector<int> listed;
    for (const auto& gpu : record.gpus) {
        listed.push_back(gpu.identity.index);
    }
    if (indices.empty()) {
        indices = listed;
    }
    auto gpus = nvml::watched_gpus(record, indices);
    if (gpus.size() != indices.size() || gpus.empty()) {
        return util::unexpected(util::ErrorCode::invalid_input,
                                fmt::format("NVML lists GPUs {}; cannot watch GPUs {}",
                                            fmt::join(listed, ","),
                                            fmt::join(indices, ",")));
    }
    return gpus;
}

void sample_rounds(Shared& shared,
                   nvml::NvmlCalls& nvml,
                   const std::vector<model::WatchedGpu>& gpus,
                   const std::vector<nvmlDevice_t>& handles,
                   std::chrono::milliseconds interval) {
    const auto first = Clock::now();
    // One round more once asked to stop: what moved since the last one counts too.
    for (bool asked_to_stop = false;;) {
        const auto begun = Clock::now();
        model::CounterRound round{.at_s = std::chrono::duration<double>(begun - first).count()};
        for (std::size_t g = 0; g < gpus.size(); ++g) {
            round.gpus.push_back(nvml::read_gpu_counters(nvml, handles[g], gpus[g]));
        }
        publish(shared, std::move(round));
        if (asked_to_stop) {
            return;
        }
        asked_to_stop = wait_until(shared, begun + interval);
    }
}

// The first session: links, error counters, then rounds until asked to stop.
util::Expected<std::vector<model::WatchedGpu>> watch_session(Shared& shared,
                                                             const nvml::NvmlApi& api,
                                                             const SamplerOptions& options) {
    auto session = nvml::NvmlSession::open(api);
    if (!session) {
        return util::unexpected(session.error());
    }
    nvml::NvmlCalls calls(*session, options.host_root);
    auto record = nvml::read_nvml_record(calls, false);
    if (!record) {
        return util::unexpected(record.error());
    }
    auto gpus = choose_gpus(*record, options.gpus);
    if (!gpus) {
        return util::unexpected(gpus.error());
    }
    auto handles = handles_of(calls, *gpus);
    if (!handles) {
        return util::unexpected(handles.error());
    }
    {
        const std::lock_guard lock(shared.mutex);
        shared.result.gpus = *gpus;
        shared.result.links_before = links_of(*record, *gpus);
    }
    sample_rounds(shared, calls, *gpus, *handles, options.interval);
    return gpus;
}

// The second session: the error counters at the end (a session of its own, as the doctor's
// reads before and after --probe are).
void end_read(Shared& shared,
              const nvml::NvmlApi& api,
              const SamplerOptions& options,
              const std::vector<model::WatchedGpu>& gpus) {
    auto session = nvml::NvmlSession::open(api);
    if (!session) {
        return;
    }
    nvml::NvmlCalls calls(*session, options.host_root);
    if (auto record = nvml::read_nvml_record(calls, false)) {
        const std::lock_guard lock(shared.mutex);
        shared.result.links_after = links_of(*record, gpus);
    }
}

void work(const std::shared_ptr<Shared>& shared, const SamplerOptions& options) {
    auto library = util::DynamicLibrary::open_first(options.libraries);
    if (!library) {
        fail(*shared,
             util::Error{.code = util::ErrorCode::not_found,
                         .message = "NVML is not available: " + library.error().message});
    } else {
        nvml::choose_simulated_machine(*library, options.simulated_machine);
        auto api = nvml::load_nvml_api(*library);
        auto gpus =
            api ? watch_session(*shared, *api, options)
                : util::Expected<std::vector<model::WatchedGpu>>(util::unexpected(api.error()));
        if (gpus) {
            end_read(*shared, *api, options, *gpus);
        } else {
            fail(*shared, gpus.error());
        }
    }
    const std::lock_guard lock(shared->mutex);
    shared->result.cpu_seconds = thread_cpu_seconds();
    if (library) {
        shared->library = std::move(*library);
    }
    shared->finished = true;
    shared->changed.notify_all();
}

}  // namespace

util::Expected<TrafficSampler> TrafficSampler::start(const SamplerOptions& options) {
    auto shared = std::make_shared<Shared>();
    try {
        std::thread(work, shared, options).detach();
    } catch (const std::system_error& e) {
        return util::unexpected(util::ErrorCode::internal,
                                std::string("cannot start the sampler: ") + e.what());
    }
    return TrafficSampler(std::move(shared), options.watchdog);
}

bool TrafficSampler::wait_for_first_round(std::chrono::milliseconds limit) {
    std::unique_lock lock(shared_->mutex);
    return shared_->changed.wait_for(
        lock, limit, [&] { return !shared_->result.rounds.empty() || shared_->finished; });
}

SampledTraffic TrafficSampler::stop() {
    std::unique_lock lock(shared_->mutex);
    shared_->stop_requested = true;
    shared_->changed.notify_all();
    const bool finished =
        shared_->changed.wait_for(lock, watchdog_, [&] { return shared_->finished; });
    SampledTraffic result = shared_->result;
    if (!finished) {
        result.stopped =
            watchdog_.count() % 1000 == 0
                ? fmt::format("NVML did not answer within {} s", watchdog_.count() / 1000)
                : fmt::format("NVML did not answer within {} ms", watchdog_.count());
    }
    return result;
}

}  // namespace peergate::pipeline
