// SPDX-License-Identifier: Apache-2.0
// peergate bench: bandwidth and latency per ordered pair, P2P against staged through host.
#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "model/gpu_list.hpp"
#include "pipeline/bench_run.hpp"
#include "pipeline/cuda_setup.hpp"
#include "report/bench/render.hpp"
#include "util/json_text.hpp"

#include <fmt/format.h>

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
           const report::bench::BenchOrigin& origin = {}) {
    if (inv.output.json) {
        fmt::print(inv.output.out,
                   "{}\n",
                   util::json_text(report::bench::bench_to_json(result, status, origin)));
    } else {
        fmt::print(inv.output.out, "{}", report::bench::bench_to_text(result, status));
    }
    return status;
}

int run_bench(const Invocation& inv, const BenchOptions& o) {
    auto selection = model::parse_gpu_indices(o.gpus);
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
    auto run = pipeline::run_bench(inv, *selection, *plan);
    if (!run.ran) {
        return render(inv, run.result, kExitError);
    }
    return render(inv, run.result, engine::bench_exit_status(run.result), run.origin);
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
