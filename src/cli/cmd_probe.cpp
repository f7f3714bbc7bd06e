// SPDX-License-Identifier: Apache-2.0
// peergate probe: move data over every ordered pair and compare (docs/gate-rules.md §6).
#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "engine/probe_verdict.hpp"
#include "model/gpu_list.hpp"
#include "pipeline/cuda_setup.hpp"
#include "pipeline/discover.hpp"
#include "pipeline/probe_sweep.hpp"
#include "pipeline/probe_trust.hpp"
#include "report/probe/json.hpp"
#include "report/probe/text.hpp"
#include "report/topology/text.hpp"
#include "util/json_text.hpp"

#include <fmt/format.h>

namespace peergate::cli {

namespace {

struct ProbeOptions {
    std::string gpus = "all";
    std::vector<std::int64_t> sizes_mib{1, 4, 16, 64};
    std::int64_t repeats = 3;
    // Every mode on every path by default: the run the gate trusts a pass of (docs/probe.md,
    // "What a pass means").
    std::string mode = "all";
    std::string verify = "device";
    double timeout_s = 30.0;
    double soak_s = 0.0;
    std::string cache_dir;
    bool no_cache = false;
    std::string path = "all";
    bool quick = false;
};

std::vector<model::ProbeMode> modes_of(const std::string& mode) {
    if (mode == "all") {
        return {model::ProbeMode::serial,
                model::ProbeMode::bidirectional,
                model::ProbeMode::concurrent};
    }
    return {model::parse_probe_mode(mode).value_or(model::ProbeMode::serial)};
}

// --path: ce, sm (SM stores, loads and the handshake), all (the default).
std::vector<model::ProbePath> paths_of(const std::string& path) {
    if (path == "ce") {
        return {model::ProbePath::ce};
    }
    if (path == "sm") {
        return {model::ProbePath::sm_store, model::ProbePath::sm_load, model::ProbePath::handshake};
    }
    return {std::begin(model::kAllProbePaths), std::end(model::kAllProbePaths)};
}

std::chrono::milliseconds milliseconds_of(double seconds) {
    return std::chrono::milliseconds(static_cast<std::int64_t>(seconds * 1000.0));
}

engine::ProbeRequest request_of(const ProbeOptions& o) {
    if (o.quick) {
        return engine::quick_request(milliseconds_of(o.timeout_s));
    }
    return {.sizes_mib = o.sizes_mib,
            .repeats = o.repeats,
            .modes = modes_of(o.mode),
            .timeout = milliseconds_of(o.timeout_s),
            .soak = milliseconds_of(o.soak_s),
            .paths = paths_of(o.path)};
}

int render(const Invocation& inv, const model::ProbeResult& result) {
    if (inv.output.json) {
        fmt::print(inv.output.out, "{}\n", util::json_text(report::probe::probe_to_json(result)));
    } else {
        fmt::print(inv.output.out, "{}", report::probe::probe_to_text(result, inv.output.color));
    }
    return engine::exit_status(result);
}

void print_before_sweep(const Invocation& inv, const model::Discovery& discovery) {
    if (inv.output.json || inv.output.quiet) {
        return;
    }
    std::string text = report::topology::topology_to_text(
        discovery,
        report::topology::TextStyle{.color = inv.output.color, .verbose = inv.output.verbose});
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

int run_probe(const Invocation& inv, const ProbeOptions& o) {
    auto selection = model::parse_gpu_indices(o.gpus);
    pipeline::ProbeSettings settings{
        .request = request_of(o),
        .verify = o.verify == "host" ? model::VerifySite::host : model::VerifySite::device,
        .cache_dir = o.cache_dir,
        .store = !o.no_cache};
    auto checked = engine::make_probe_plan(settings.request);
    if (!selection || !checked) {
        print_error(inv.output, (!selection ? selection.error() : checked.error()).message);
        return kExitError;
    }
    const auto discovery = pipeline::discover(inv, "auto", true);
    print_before_sweep(inv, discovery);
    // Exit 0 only for a pass the gate would trust: what a caller of `peergate probe && ...`
    // reads as "safe" must be what the gate acts on.
    return render(inv,
                  pipeline::held_to_gate_trust(
                      pipeline::probe_selection(inv, discovery, *selection, settings)));
}

}  // namespace

Command add_probe_command(CLI::App& app) {
    auto o = std::make_shared<ProbeOptions>();
    CLI::App* sub = app.add_subcommand("probe",
                                       "move data over every ordered GPU pair and compare it "
                                       "(sentinel, pattern, verdict per pair)");
    sub->add_option("--gpus", o->gpus, "nvidia-smi indices to probe: 'all' or a list like 0,1,3");
    auto* sizes =
        sub->add_option("--sizes-mib", o->sizes_mib, "copy sizes in MiB (default 1,4,16,64)")
            ->delimiter(',');
    auto* repeats =
        sub->add_option("--repeats", o->repeats, "repeats per size and pair (default 3)");
    auto* path =
        sub->add_option("--path",
                        o->path,
                        "ce: copy-engine transfers (llama.cpp's GGML_CUDA_P2P); sm: kernels "
                        "storing and loading through the peer mapping and the flag handshake "
                        "(NCCL, vLLM and SGLang's custom all-reduce); all (the default: every "
                        "path, as the gate needs for a pass)")
            ->check(CLI::IsMember({"ce", "sm", "all"}));
    auto* mode =
        sub->add_option(
               "--mode",
               o->mode,
               "serial (one pair at a time), bidirectional (A->B and B->A at once), concurrent "
               "(every pair at once, each on its own stream: loads the bus like a long prompt), "
               "all (the default: the three in turn). The gate trusts only a concurrent-mode "
               "pass, so a pass without it exits 2 (not tested under load)")
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
           "watchdog, seconds: a copy or synchronisation that takes longer is an error verdict")
        ->check(seconds_from(0.001, 86400.0));
    auto* soak =
        sub->add_option("--soak",
                        o->soak_s,
                        "burn-in: sweep again, with fresh patterns, until SECONDS have passed (the "
                        "loss is load-dependent and can take minutes to show); a round that loses "
                        "data ends it")
            ->check(seconds_from(0.0, 604800.0));
    sub->add_option(
        "--cache-dir",
        o->cache_dir,
        "verdict cache directory (default $PEERGATE_CACHE_DIR, else /var/cache/peergate for "
        "root, else $XDG_CACHE_HOME/peergate or ~/.cache/peergate)");
    sub->add_flag("--no-cache", o->no_cache, "do not write the result to the verdict cache");
    sub->add_flag("--quick",
                  o->quick,
                  "pre-launch check: every ordered pair on every path at once, one 1 MiB "
                  "transfer each (--mode concurrent --path all --sizes-mib 1 --repeats 1); the "
                  "gate trusts its pass as it trusts any concurrent pass")
        ->excludes(sizes)
        ->excludes(repeats)
        ->excludes(path)
        ->excludes(mode)
        ->excludes(soak);
    sub->footer(
        "Defaults: --mode all --path all --sizes-mib 1,4,16,64 --repeats 3: every mode on every "
        "path, so a bare 'peergate probe' tests under load what the gate needs.\n"
        "Exit status: 0 every pair intact and the gate would trust the pass (the concurrent mode "
        "on the direct path, on the ce, sm-store and handshake paths), 1 a pair lost data (the "
        "pair and the mode are named, with the remedy), 2 inconclusive: a pass the gate would not "
        "trust (not tested under load, a path it needs not tested, or no peer path: the driver "
        "refused peer access), or the probe cannot run (no driver, fewer than two GPUs, "
        "allocation failed, watchdog).");
    return Command{sub, [o](const Invocation& inv) { return run_probe(inv, *o); }};
}

}  // namespace peergate::cli
