// SPDX-License-Identifier: Apache-2.0
#include "pipeline/bench_run.hpp"

#include "pipeline/cuda_setup.hpp"
#include "pipeline/discover.hpp"
#include "sources/cuda/cuda_copy_engine.hpp"
#include "sources/cuda/watched_run.hpp"
#include "sources/host/host_name.hpp"

#include <memory>
#include <mutex>
#include <optional>
#include <string>

namespace peergate::pipeline {

namespace {

// The host and the GPUs' UUIDs, so that a reader can tell this result from another node's.
report::bench::BenchOrigin origin_of(const model::Discovery& discovery,
                                     const std::vector<int>& gpus) {
    report::bench::BenchOrigin origin{.host = sources::host::host_name()};
    const model::Topology* topology = discovery.described();
    for (const int index : gpus) {
        const auto at = topology != nullptr ? topology->position_of(index) : std::nullopt;
        origin.gpu_uuids.push_back(at ? topology->gpus[*at].uuid : "");
    }
    return origin;
}

BenchRun cannot_run(std::vector<int> gpus, std::string reason) {
    return BenchRun{.result = {.gpus = std::move(gpus), .reason = std::move(reason)}};
}

// Runs the plan on the CUDA driver behind the watchdog: an engine that hangs is abandoned and
// the bench cannot run, it does not hang the command. nullopt with `why` when it did not finish.
std::optional<engine::BenchResult> bench_watched(const CudaSetup& setup,
                                                 const engine::BenchPlan& plan,
                                                 std::string& why) {
    struct Shared {
        std::mutex mutex;
        engine::BenchResult result;
    };

    auto shared = std::make_shared<Shared>();
    const sources::cuda::CudaEngineOptions options{.ordinals = ordinals_of(setup.selected),
                                                   .verify = model::VerifySite::host};
    auto driver = setup.driver;
    auto open = [driver, options]() -> util::Expected<std::unique_ptr<engine::CopyEngine>> {
        auto engine = sources::cuda::CudaCopyEngine::open(driver, options);
        if (!engine) {
            return util::unexpected(engine.error());
        }
        return std::unique_ptr<engine::CopyEngine>(std::move(*engine));
    };
    auto work = [shared, plan](engine::CopyEngine& e) {
        auto result = engine::run_bench(e, plan);
        std::lock_guard lock(shared->mutex);
        shared->result = std::move(result);
    };
    const auto outcome = sources::cuda::run_watched(open, work, plan.timeout);
    if (!outcome.finished || !outcome.opened) {
        why = outcome.finished ? outcome.open_error : outcome.abandoned;
        return std::nullopt;
    }
    std::lock_guard lock(shared->mutex);
    return shared->result;
}

}  // namespace

BenchRun run_bench(const Context& ctx, const std::vector<int>& selection, engine::BenchPlan plan) {
    const auto discovery = discover(ctx, "auto", false);
    auto setup = set_up_cuda(ctx, discovery, selection, plan.timeout);
    if (!setup) {
        return cannot_run(selection, "cannot run: " + setup.error().message);
    }
    plan.gpus = indices_of(setup->selected);
    if (plan.gpus.empty()) {
        return cannot_run({}, "cannot run: no GPU selected");
    }
    std::string why;
    auto result = bench_watched(*setup, plan, why);
    if (!result) {
        return cannot_run(plan.gpus, why);
    }
    return BenchRun{
        .result = std::move(*result), .origin = origin_of(discovery, plan.gpus), .ran = true};
}

}  // namespace peergate::pipeline
