// SPDX-License-Identifier: Apache-2.0
#include "pipeline/watch.hpp"

#include "pipeline/watch_sampler.hpp"
#include "util/child_process.hpp"

#include <signal.h>

#include <cerrno>
#include <ctime>

namespace peergate::pipeline {

namespace {

using Clock = std::chrono::steady_clock;

// What execvp searches when PATH is unset is libc's choice; ours is written down (as exec's).
constexpr const char* kDefaultPath = "/usr/local/bin:/usr/bin:/bin";

// Blocks SIGINT and SIGTERM in this thread (and in threads it starts after) while attached, so
// that sigtimedwait takes them; restored on destruction.
class AttachSignals {
public:
    AttachSignals() {
        sigemptyset(&set_);
        sigaddset(&set_, SIGINT);
        sigaddset(&set_, SIGTERM);
        ::pthread_sigmask(SIG_BLOCK, &set_, &saved_);
    }

    AttachSignals(const AttachSignals&) = delete;
    AttachSignals& operator=(const AttachSignals&) = delete;

    ~AttachSignals() { ::pthread_sigmask(SIG_SETMASK, &saved_, nullptr); }

    // Waits `duration` or until SIGINT or SIGTERM arrives.
    void wait(std::chrono::milliseconds duration) const {
        const auto end = Clock::now() + duration;
        for (;;) {
            const auto left =
                std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now());
            if (left.count() <= 0) {
                return;
            }
            const timespec timeout{.tv_sec = left.count() / 1000,
                                   .tv_nsec = (left.count() % 1000) * 1'000'000};
            if (::sigtimedwait(&set_, nullptr, &timeout) >= 0 || errno == EAGAIN) {
                return;  // asked to stop, or the time is up; EINTR: another handler ran
            }
        }
    }

private:
    sigset_t set_{};
    sigset_t saved_{};
};

SamplerOptions sampler_options(const Context& ctx, const WatchRequest& request) {
    return SamplerOptions{.libraries = ctx.seams.nvml_libraries,
                          .host_root = ctx.seams.host_root,
                          .simulated_machine = ctx.seams.simulated_machine,
                          .gpus = request.gpus,
                          .interval = request.interval};
}

policy::watch::WatchReport judged(const WatchRequest& request,
                                  const SampledTraffic& sampled,
                                  double seconds) {
    policy::watch::WatchReport report{.command = request.command,
                                      .seconds = seconds,
                                      .interval_ms = static_cast<int>(request.interval.count()),
                                      .gate = request.gate,
                                      .sampling_stopped = sampled.stopped,
                                      .sampler_cpu_seconds = sampled.cpu_seconds,
                                      .start_delay_s = sampled.start_delay_s,
                                      .gpus = sampled.gpus};
    if (!sampled.started) {
        report.sampling_error = sampled.started.error().message;
    }
    policy::watch::WatchFacts facts{
        .gated = request.gate.has_value(),
        .p2p_allowed = request.gate && request.gate->p2p,
        .links_before = sampled.links_before,
        .links_after = sampled.links_after,
        .sampling_error = report.sampling_error,
        .sampling_stopped = sampled.stopped,
        .what_ran = request.command.empty() ? "watch sampled" : "the job ran"};
    policy::watch::judge_watch(report, sampled.rounds, facts);
    return report;
}

}  // namespace

util::Expected<policy::watch::WatchReport> run_watch(const Context& ctx,
                                                     const WatchRequest& request) {
    const auto begun = Clock::now();
    std::optional<AttachSignals> attached;
    if (request.command.empty()) {
        attached.emplace();  // before the sampler starts, so that its thread blocks them too
    }
    auto sampler = TrafficSampler::start(sampler_options(ctx, request));
    if (!sampler) {
        return util::unexpected(sampler.error());
    }
    std::optional<int> status;
    double start_delay = 0.0;
    if (attached) {
        attached->wait(request.attach_for);
    } else {
        const auto asked = Clock::now();
        sampler->wait_for_first_round(request.start_wait);
        start_delay = std::chrono::duration<double>(Clock::now() - asked).count();
        auto child = util::ChildProcess::start(request.command, request.child_env, kDefaultPath);
        if (!child) {
            sampler->stop();
            return util::unexpected(child.error());
        }
        status = child->wait();
    }
    auto sampled = sampler->stop();
    sampled.start_delay_s = start_delay;
    auto report =
        judged(request, sampled, std::chrono::duration<double>(Clock::now() - begun).count());
    report.exit_status = status;
    return report;
}

}  // namespace peergate::pipeline
