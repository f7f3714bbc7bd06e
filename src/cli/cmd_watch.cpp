// SPDX-License-Identifier: Apache-2.0
// peergate watch: run CMD as exec would (gated) while sampling what NVLink and PCIe carry,
// then say per GPU pair which path the job's data took (docs/watch.md). Exit status: CMD's.
#include "cli/commands.hpp"
#include "cli/gate_command.hpp"
#include "cli/option_checks.hpp"
#include "pipeline/watch.hpp"
#include "policy/gate/types.hpp"
#include "report/watch/json.hpp"
#include "report/watch/text.hpp"
#include "util/atomic_file.hpp"
#include "util/json_text.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

namespace peergate::cli {

namespace {

struct WatchOptions {
    std::string gpus;
    CLI::Option* gpus_option = nullptr;
    std::string profile = "llama.cpp";
    int interval_ms = 1000;
    bool no_gate = false;
    bool even_if_unusable = false;  // start CMD where no CUDA program can start
    bool attach = false;
    double seconds = 10.0;
    std::string output;
    std::vector<std::string> command;
};

// The gate's decision and the child's environment; nullopt after printing why not.
std::optional<pipeline::WatchRequest> gated_request(const Invocation& inv,
                                                    const WatchOptions& options) {
    pipeline::WatchRequest request{.interval = std::chrono::milliseconds(options.interval_ms),
                                   .command = options.command};
    const auto deciding = std::chrono::steady_clock::now();
    const auto decision = decide_for_command(inv,
                                             gpus_given(options.gpus_option, options.gpus),
                                             options.profile,
                                             nullptr,
                                             options.command);
    request.start_wait = std::max(std::chrono::milliseconds(100),
                                  std::chrono::duration_cast<std::chrono::milliseconds>(
                                      std::chrono::steady_clock::now() - deciding));
    if (!decision ||
        !command_may_start(inv, *decision, options.command.front(), options.even_if_unusable)) {
        return std::nullopt;
    }
    log_decision(inv, *decision);  // as exec logs it
    request.gpus = decision->selection;
    request.child_env = child_environment(inv, &*decision);
    request.gate = policy::watch::GateSummary{.profile = std::string(to_string(decision->profile)),
                                              .p2p = decision->p2p,
                                              .rule = decision->rule,
                                              .reason = decision->reason};
    return request;
}

// --no-gate and --attach: the GPUs --gpus names (all without it), the environment as it is.
std::optional<pipeline::WatchRequest> ungated_request(const Invocation& inv,
                                                      const WatchOptions& options) {
    pipeline::WatchRequest request{
        .interval = std::chrono::milliseconds(options.interval_ms),
        .command = options.command,
        .attach_for = std::chrono::milliseconds(static_cast<std::int64_t>(options.seconds * 1000)),
        .child_env = child_environment(inv, nullptr)};
    if (options.gpus_option->count() > 0) {
        auto selection = policy::gate::Selection::parse(options.gpus);
        if (!selection) {
            print_error(inv.output, "--gpus: " + selection.error().message);
            return std::nullopt;
        }
        request.gpus = selection->ids;
    }
    return request;
}

int print_report(const Invocation& inv,
                 const WatchOptions& options,
                 const policy::watch::WatchReport& report) {
    // CMD owns stdout while it runs; the report for people goes where `time` puts its own.
    std::FILE* text_to = options.attach ? inv.output.out : inv.output.err;
    const std::string json = util::json_text(report::watch::watch_to_json(report)) + "\n";
    if (!options.output.empty()) {
        if (auto written = util::write_file_atomically(options.output, json); !written) {
            print_error(inv.output, "--output: " + written.error().message);
            return kExitError;
        }
    }
    if (inv.output.json && options.output.empty()) {
        fmt::print(inv.output.out, "{}", json);
    } else {
        fmt::print(text_to, "{}", report::watch::watch_to_text(report));
    }
    return kExitOk;
}

// Attached there is no command's status: 1 on a warning or error finding, 2 when nothing was
// sampled.
int attached_status(const policy::watch::WatchReport& report) {
    if (!report.sampling_error.empty()) {
        return kExitError;
    }
    const bool problem =
        std::any_of(report.findings.begin(), report.findings.end(), [](const auto& f) {
            return f.severity != model::Severity::info;
        });
    return problem ? kExitFindings : kExitOk;
}

int run_watch(const Invocation& inv, const WatchOptions& options) {
    if (options.attach == !options.command.empty()) {
        print_error(inv.output,
                    "watch needs a command or --attach: peergate watch [--gpus LIST] -- CMD "
                    "ARGS..., or peergate watch --attach [--seconds N]");
        return kExitError;
    }
    const auto request = options.attach || options.no_gate ? ungated_request(inv, options)
                                                           : gated_request(inv, options);
    if (!request) {
        return kExitError;
    }
    const auto report = pipeline::run_watch(inv, *request);
    if (!report) {
        print_error(inv.output, report.error().message);
        return kExitError;
    }
    if (const int printed = print_report(inv, options, *report); printed != kExitOk) {
        return report->exit_status.value_or(printed);
    }
    return options.attach ? attached_status(*report) : report->exit_status.value_or(kExitError);
}

}  // namespace

Command add_watch_command(CLI::App& app) {
    auto options = std::make_shared<WatchOptions>();
    CLI::App* sub = app.add_subcommand(
        "watch",
        "run CMD as exec does while sampling NVLink and PCIe traffic; then say per GPU pair "
        "whether the job's data went over NVLink, PCIe, or nowhere");
    options->gpus_option =
        sub->add_option("--gpus",
                        options->gpus,
                        "nvidia-smi indices such as 0,1,3, or 'all': the GPUs gated and watched");
    sub->add_option("--for", options->profile, "llama.cpp (default), nccl, vllm, sglang, all");
    sub->add_option("--interval", options->interval_ms, "milliseconds between two samples (1000)")
        ->check(whole_number(10, 60'000));
    sub->add_flag(
        "--no-gate", options->no_gate, "run CMD with the environment as it is, undecided");
    add_even_if_unusable_flag(sub, options->even_if_unusable);
    sub->add_flag("--attach",
                  options->attach,
                  "launch nothing: sample a job already running, for --seconds or until SIGINT");
    sub->add_option("--seconds", options->seconds, "with --attach: how long to sample (10)")
        ->check(seconds_from(0.1, 604'800));
    sub->add_option("--output",
                    options->output,
                    "also write peergate.watch/v1 to FILE (atomically): stdout is CMD's");
    sub->add_option(
        "command", options->command, "-- CMD ARGS...: the program to run and its arguments");
    sub->footer(
        "The report goes to stderr (stdout with --attach); --json prints peergate.watch/v1 on "
        "stdout.\nExit status: CMD's; 2 when CMD cannot be started (no CUDA program can start "
        "here, unless --even-if-unusable), a --gpus GPU is not on this host, or the options are "
        "wrong. "
        "With --attach: 0 sampled, 1 a warning or error finding, 2 nothing could be sampled.");
    return Command{sub, [options](const Invocation& inv) { return run_watch(inv, *options); }};
}

}  // namespace peergate::cli
