// SPDX-License-Identifier: Apache-2.0
#include "pipeline/probe_sweep.hpp"

#include "engine/probe_runner.hpp"
#include "engine/probe_verdict.hpp"
#include "pipeline/cuda_setup.hpp"
#include "pipeline/probe_cache_io.hpp"
#include "report/probe/text.hpp"
#include "sources/cuda/cuda_copy_engine.hpp"
#include "sources/cuda/watched_run.hpp"

#include <fmt/format.h>

#include <chrono>
#include <memory>
#include <mutex>

namespace peergate::pipeline {

namespace {

// What the worker publishes while it runs; read by the caller even if it is abandoned.
struct Progress {
    std::mutex mutex;
    std::vector<model::ProbeCell> cells;  // summed over the rounds so far
    std::size_t next = 0;                 // the cell of the current round not yet finished
    int round = 0;
    std::optional<model::VerifySite> site;
    std::string verify_note;
    std::optional<double> device_s;  // once the run finished and timed something
};

// A soak can run for hours with its stderr in a log, where no bar is drawn: a line per round
// says it is alive and how far it got.
std::string round_line(const Progress& progress,
                       const engine::ProbePlan& plan,
                       std::chrono::steady_clock::time_point start) {
    const bool lost = model::any_data_lost(progress.cells);
    return fmt::format(
        "peergate: soak round {} done: {} cells, {:.0f} s of {:.0f} s{}\n",
        progress.round + 1,
        progress.cells.size(),
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(),
        std::chrono::duration<double>(plan.soak).count(),
        lost ? "; data lost, so the soak ends" : "");
}

engine::ProbeProgress progress_sink(const Context& ctx,
                                    const engine::ProbePlan& plan,
                                    const std::shared_ptr<Progress>& shared) {
    const bool bar = ctx.output.progress;
    const bool log = !bar && !ctx.output.quiet && plan.soak.count() > 0;
    std::FILE* err = ctx.output.err;
    const auto start = std::chrono::steady_clock::now();
    return [shared, bar, log, err, plan, start](
               const model::ProbeCell& cell, std::size_t done, std::size_t total, int round) {
        std::string line;  // printed outside the lock
        {
            std::lock_guard lock(shared->mutex);
            if (done > shared->cells.size()) {
                shared->cells.push_back(cell);
            } else {
                shared->cells[done - 1] = cell;
            }
            shared->next = done;
            shared->round = round;
            if (log && done == total) {
                line = round_line(*shared, plan, start);
            }
        }
        fmt::print(err, "{}", line);
        if (bar) {
            fmt::print(err,
                       "\r{}\x1b[K{}",
                       report::probe::probe_progress_line(cell, done, total, round),
                       done == total ? "\n" : "");
        }
    };
}

model::ProbeResult sweep(const Context& ctx,
                         const CudaSetup& setup,
                         const engine::ProbePlan& plan,
                         model::VerifySite verify) {
    auto shared = std::make_shared<Progress>();
    const sources::cuda::CudaEngineOptions options{.ordinals = ordinals_of(setup.selected),
                                                   .verify = verify};
    auto driver = setup.driver;
    auto open = [driver, options, shared]() -> util::Expected<std::unique_ptr<engine::CopyEngine>> {
        auto engine = sources::cuda::CudaCopyEngine::open(driver, options);
        if (!engine) {
            return util::unexpected(engine.error());
        }
        std::lock_guard lock(shared->mutex);
        shared->site = (*engine)->verify_site();
        shared->verify_note = (*engine)->verify_note();
        return std::unique_ptr<engine::CopyEngine>(std::move(*engine));
    };
    auto progress = progress_sink(ctx, plan, shared);
    auto work = [plan, progress, shared](engine::CopyEngine& e) {
        const auto run = engine::run_probe(e, plan, progress);
        std::lock_guard lock(shared->mutex);
        if (run.device_seconds > 0.0) {
            shared->device_s = run.device_seconds;
        }
    };
    const auto outcome = sources::cuda::run_watched(open, work, plan.timeout);
    if (outcome.finished && !outcome.opened) {
        return engine::cannot_run(plan.gpus,
                                  "the CUDA engine could not start: " + outcome.open_error);
    }
    std::lock_guard lock(shared->mutex);
    auto cells = outcome.finished ? shared->cells
                                  : engine::finish_abandoned_run(
                                        plan, shared->cells, shared->next, outcome.abandoned);
    for (std::size_t i = shared->cells.size(); i < cells.size() && shared->site; ++i) {
        cells[i].verify = *shared->site;  // cells the abandoned worker never reached
    }
    auto result = engine::judge_probe(plan, std::move(cells), shared->round + 1);
    result.verify = shared->site;
    result.verify_note = shared->verify_note;
    result.device_s = shared->device_s;
    if (!outcome.finished) {
        result.reason = outcome.abandoned + "; " + result.reason;
    }
    return result;
}

}  // namespace

model::ProbeResult probe_selection(const Context& ctx,
                                   const model::Discovery& discovery,
                                   const std::vector<int>& selection,
                                   const ProbeSettings& settings) {
    auto setup = set_up_cuda(ctx, discovery, selection, settings.request.timeout);
    if (!setup) {
        return engine::cannot_run(selection, "cannot run: " + setup.error().message);
    }
    auto request = settings.request;
    request.gpus = indices_of(setup->selected);
    if (request.gpus.size() < 2) {
        return engine::cannot_run(
            request.gpus,
            fmt::format("cannot run: {} GPU(s) selected; a peer-to-peer probe needs at least two",
                        request.gpus.size()));
    }
    const auto plan = engine::make_probe_plan(request);
    if (!plan) {
        return engine::cannot_run(request.gpus, "cannot run: " + plan.error().message);
    }
    auto result = sweep(ctx, *setup, *plan, settings.verify);
    if (settings.store) {
        store_probe_result(ctx, settings.cache_dir, *setup, discovery, result);
    }
    return result;
}

}  // namespace peergate::pipeline
