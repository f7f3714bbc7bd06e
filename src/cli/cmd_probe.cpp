// SPDX-License-Identifier: Apache-2.0
// peergate probe: move data over every ordered pair and compare (GATE-SPEC.md §6).
#include "cli/commands.hpp"
#include "cli/cuda_setup.hpp"
#include "cli/probe_cache_io.hpp"
#include "cli/topology_input.hpp"
#include "engine/probe_runner.hpp"
#include "engine/probe_verdict.hpp"
#include "report/json_text.hpp"
#include "report/probe_json.hpp"
#include "report/probe_text.hpp"
#include "report/topology_text.hpp"
#include "sources/cuda/cuda_copy_engine.hpp"
#include "sources/cuda/watched_run.hpp"

#include <fmt/format.h>

#include <mutex>

namespace peergate::cli {

namespace {

struct ProbeOptions {
    std::string gpus = "all";
    std::vector<std::int64_t> sizes_mib{1, 4, 16, 64};
    std::int64_t repeats = 3;
    std::string mode = "serial";
    std::string verify = "device";
    double timeout_s = 30.0;
    std::string cache_dir;
    bool no_cache = false;
};

// What the worker publishes while it runs; read by the caller even if it is abandoned.
struct Progress {
    std::mutex mutex;
    std::vector<model::ProbeCell> cells;
    std::optional<model::VerifySite> site;
    std::string verify_note;
};

std::vector<model::ProbeMode> modes_of(const std::string& mode) {
    if (mode == "all") {
        return {model::ProbeMode::serial,
                model::ProbeMode::bidirectional,
                model::ProbeMode::concurrent};
    }
    return {model::parse_probe_mode(mode).value_or(model::ProbeMode::serial)};
}

int render(const Invocation& inv, const model::ProbeResult& result) {
    if (inv.output.json) {
        fmt::print(inv.output.out, "{}\n", report::json_text(report::probe_to_json(result)));
    } else {
        fmt::print(inv.output.out, "{}", report::probe_to_text(result, inv.output.color));
    }
    return engine::exit_status(result);
}

void print_before_sweep(const Invocation& inv, const model::Discovery& discovery) {
    if (inv.output.json || inv.output.quiet) {
        return;
    }
    std::string text = report::topology_to_text(
        discovery, report::TextStyle{.color = inv.output.color, .verbose = inv.output.verbose});
    if (!discovery.crosscheck) {
        for (const auto& attempt : discovery.attempts) {
            if (!attempt.topology) {
                text += fmt::format("cross-check: not available ({} gave no verdict: {})\n",
                                    attempt.tier,
                                    attempt.reason);
            }
        }
    } else {
        for (const auto& [a, b] : discovery.crosscheck->nvml_only) {
            text += fmt::format(
                "warning: NVML says GPU {} and GPU {} are NVLinked, nvidia-smi topo -m "
                "does not: the dangerous direction (P2P would run over PCIe)\n",
                a,
                b);
        }
    }
    fmt::print(inv.output.out, "{}\n", text);
}

engine::ProbeProgress progress_sink(const Invocation& inv,
                                    const std::shared_ptr<Progress>& shared) {
    const bool bar = inv.output.progress;
    std::FILE* err = inv.output.err;
    return [shared, bar, err](const model::ProbeCell& cell, std::size_t done, std::size_t total) {
        {
            std::lock_guard lock(shared->mutex);
            shared->cells.push_back(cell);
        }
        if (bar) {
            fmt::print(err,
                       "\r{}\x1b[K{}",
                       report::probe_progress_line(cell, done, total),
                       done == total ? "\n" : "");
        }
    };
}

model::ProbeResult sweep(const Invocation& inv,
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
    auto progress = progress_sink(inv, shared);
    auto work = [plan, progress](engine::CopyEngine& e) {
        engine::run_probe_cells(e, plan, progress);
    };
    const auto outcome = sources::cuda::run_watched(open, work, plan.timeout);
    if (outcome.finished && !outcome.opened) {
        return engine::cannot_run(plan.gpus,
                                  "the CUDA engine could not start: " + outcome.open_error);
    }
    std::lock_guard lock(shared->mutex);
    auto cells = outcome.finished
                     ? shared->cells
                     : engine::finish_abandoned_run(plan, shared->cells, outcome.abandoned);
    for (std::size_t i = shared->cells.size(); i < cells.size() && shared->site; ++i) {
        cells[i].verify = *shared->site;  // cells the abandoned worker never reached
    }
    auto result = engine::judge_probe(plan, std::move(cells));
    result.verify = shared->site;
    result.verify_note = shared->verify_note;
    if (!outcome.finished) {
        result.reason = outcome.abandoned + "; " + result.reason;
    }
    return result;
}

int run_probe(const Invocation& inv, const ProbeOptions& o) {
    auto selection = parse_gpu_list(o.gpus);
    engine::ProbeRequest request{
        .gpus = {},
        .sizes_mib = o.sizes_mib,
        .repeats = o.repeats,
        .modes = modes_of(o.mode),
        .timeout = std::chrono::milliseconds(static_cast<std::int64_t>(o.timeout_s * 1000.0))};
    auto checked = engine::make_probe_plan(request);
    if (!selection || !checked) {
        print_error(inv.output, (!selection ? selection.error() : checked.error()).message);
        return kExitError;
    }
    const auto discovery = discover(inv, "auto", true);
    print_before_sweep(inv, discovery);
    auto setup = set_up_cuda(inv, discovery, *selection, request.timeout);
    if (!setup) {
        return render(inv, engine::cannot_run(*selection, "cannot run: " + setup.error().message));
    }
    request.gpus = indices_of(setup->selected);
    if (request.gpus.size() < 2) {
        return render(
            inv,
            engine::cannot_run(
                request.gpus,
                fmt::format(
                    "cannot run: {} GPU(s) selected; a peer-to-peer probe needs at least two",
                    request.gpus.size())));
    }
    auto plan = engine::make_probe_plan(request);
    const auto verify = o.verify == "host" ? model::VerifySite::host : model::VerifySite::device;
    auto result = sweep(inv, *setup, *plan, verify);
    if (!o.no_cache) {
        store_probe_result(inv, o.cache_dir, *setup, discovery, result);
    }
    return render(inv, result);
}

}  // namespace

Command add_probe_command(CLI::App& app) {
    auto o = std::make_shared<ProbeOptions>();
    CLI::App* sub = app.add_subcommand("probe",
                                       "move data over every ordered GPU pair and compare it "
                                       "(sentinel, pattern, verdict per pair)");
    sub->add_option("--gpus", o->gpus, "nvidia-smi indices to probe: 'all' or a list like 0,1,3");
    sub->add_option("--sizes-mib", o->sizes_mib, "copy sizes in MiB")->delimiter(',');
    sub->add_option("--repeats", o->repeats, "repeats per size and pair");
    sub->add_option(
           "--mode",
           o->mode,
           "serial (one pair at a time), bidirectional (A->B and B->A at once), concurrent "
           "(every pair at once, each on its own stream: loads the bus like a long prompt), all")
        ->check(CLI::IsMember({"serial", "bidirectional", "concurrent", "all"}));
    sub->add_option(
           "--verify",
           o->verify,
           "device: fill and compare on the GPU with the probe's PTX kernels (falls back to "
           "host when the driver cannot load them); host: copy back and compare on the CPU")
        ->check(CLI::IsMember({"device", "host"}));
    sub->add_option(
        "--timeout",
        o->timeout_s,
        "watchdog, seconds: a copy or synchronisation that takes longer is an error verdict");
    sub->add_option(
        "--cache-dir",
        o->cache_dir,
        "verdict cache directory (default $XDG_CACHE_HOME/peergate, else ~/.cache/peergate)");
    sub->add_flag("--no-cache", o->no_cache, "do not write the result to the verdict cache");
    sub->footer(
        "Exit status: 0 every pair intact, 1 a pair lost data (the pair and the mode are named, "
        "with the remedy), 2 inconclusive or cannot run (no driver, fewer than two GPUs, "
        "allocation failed, watchdog).");
    return Command{sub, [o](const Invocation& inv) { return run_probe(inv, *o); }};
}

}  // namespace peergate::cli
