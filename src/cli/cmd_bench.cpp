// SPDX-License-Identifier: Apache-2.0
// peergate bench: bandwidth and latency per ordered pair, P2P against staged through host.
#include "cli/commands.hpp"
#include "cli/cuda_setup.hpp"
#include "cli/option_checks.hpp"
#include "cli/topology_input.hpp"
#include "report/bench_render.hpp"
#include "report/json_text.hpp"
#include "sources/cuda/cuda_copy_engine.hpp"
#include "sources/cuda/watched_run.hpp"
#include "sources/host/host_name.hpp"

#include <fmt/format.h>

#include <mutex>
#include <optional>

namespace peergate::cli {

namespace {

struct BenchOptions {
    std::string gpus = "all";
    std::int64_t size_mib = 64;
    bool latency = false;
    double timeout_s = 30.0;
};

int render(const Invocation& inv,
           const engine::BenchResult& result,
           int status,
           const report::BenchOrigin& origin = {}) {
    if (inv.output.json) {
        fmt::print(inv.output.out,
                   "{}\n",
                   report::json_text(report::bench_to_json(result, status, origin)));
    } else {
        fmt::print(inv.output.out, "{}", report::bench_to_text(result, status));
    }
    return status;
}

// The host and the GPUs' UUIDs, so that a reader can tell this result from another node's.
report::BenchOrigin origin_of(const model::Discovery& discovery, const std::vector<int>& gpus) {
    report::BenchOrigin origin{.host = sources::host::host_name()};
    const model::Topology* topology = discovery.described();
    for (const int index : gpus) {
        const auto at = topology != nullptr ? topology->position_of(index) : std::nullopt;
        origin.gpu_uuids.push_back(at ? topology->gpus[*at].uuid : "");
    }
    return origin;
}

int cannot_run(const Invocation& inv, std::vector<int> gpus, std::string reason) {
    engine::BenchResult result{.gpus = std::move(gpus), .reason = std::move(reason)};
    return render(inv, result, kExitError);
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

int run_bench(const Invocation& inv, const BenchOptions& o) {
    auto selection = parse_gpu_list(o.gpus);
    const engine::BenchRequest request{
        .size_mib = o.size_mib,
        .latency = o.latency,
        .timeout = std::chrono::milliseconds(static_cast<std::int64_t>(o.timeout_s * 1000.0))};
    auto plan = engine::make_bench_plan(request);
    if (!selection || !plan || o.timeout_s <= 0) {
        print_error(inv.output,
                    !selection ? selection.error().message
                    : !plan    ? plan.error().message
                               : "--timeout: must be more than 0 seconds");
        return kExitError;
    }
    const auto discovery = discover(inv, "auto", false);
    auto setup = set_up_cuda(inv, discovery, *selection, plan->timeout);
    if (!setup) {
        return cannot_run(inv, *selection, "cannot run: " + setup.error().message);
    }
    plan->gpus = indices_of(setup->selected);
    if (plan->gpus.empty()) {
        return cannot_run(inv, {}, "cannot run: no GPU selected");
    }
    std::string why;
    const auto result = bench_watched(*setup, *plan, why);
    if (!result) {
        return cannot_run(inv, plan->gpus, why);
    }
    return render(
        inv, *result, engine::bench_exit_status(*result), origin_of(discovery, plan->gpus));
}

}  // namespace

Command add_bench_command(CLI::App& app) {
    auto o = std::make_shared<BenchOptions>();
    CLI::App* sub = app.add_subcommand(
        "bench",
        "bandwidth and latency per ordered GPU pair: P2P against staged through host memory");
    sub->add_option("--gpus", o->gpus, "nvidia-smi indices: 'all' or a list like 0,1,3");
    sub->add_option("--size-mib", o->size_mib, "bytes per copy, in MiB");
    sub->add_flag("--latency", o->latency, "also measure small-copy (4-byte) latency");
    sub->add_option("--timeout", o->timeout_s, "watchdog, seconds, per driver call")
        ->check(seconds_from(0.001, 86400.0));
    sub->footer(
        "Measures with CUDA events after a warm-up; the median of several samples is "
        "reported. On one GPU: device-local and host<->device bandwidth.\n"
        "Exit status: 0 measured, 1 a pair is slower with P2P than staged through host "
        "memory (named), 2 cannot run.");
    return Command{sub, [o](const Invocation& inv) { return run_bench(inv, *o); }};
}

}  // namespace peergate::cli
