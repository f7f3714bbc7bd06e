// SPDX-License-Identifier: Apache-2.0
// peergate fleet: the same verdicts across a Slurm cluster. `fleet node` prints one node's
// answer as one JSON line; `fleet run` runs it on every node of an allocation through srun
// and judges the lines; `fleet merge` judges lines collected some other way.
#include "cli/cmd_fleet_health.hpp"
#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "pipeline/export_gather.hpp"
#include "pipeline/identity_join.hpp"
#include "pipeline/module_location.hpp"
#include "policy/fleet/fleet.hpp"
#include "report/fleet/html.hpp"
#include "report/fleet/node_lines.hpp"
#include "report/fleet/render.hpp"
#include "util/atomic_file.hpp"
#include "util/json_text.hpp"
#include "util/subprocess.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <optional>
#include <random>

namespace peergate::cli {

namespace {

struct FleetOptions {
    pipeline::ExportRequest node;
    bool one_line = false;           // node: the whole record on one line, whatever its length
    std::vector<std::string> files;  // merge
    int nodes = 0;                   // run, merge: how many should answer; 0 unknown
    int timeout_seconds = 900;       // run
    std::string save;                // run: the nodes' lines, for a later merge
    std::string html;                // run, merge: also the report as one HTML page
    std::vector<std::string> srun_args;
    CLI::App* node_app = nullptr;
    CLI::App* merge_app = nullptr;
    CLI::App* run_app = nullptr;
};

int run_node(const Invocation& inv, const FleetOptions& options) {
    auto request = options.node;
    request.identity_helper = pipeline::self_executable();  // the gate's identity join
    const auto facts = pipeline::gather_export_facts(inv, request);
    if (!facts) {
        print_error(inv.output, facts.error().message);
        return kExitError;
    }
    if (options.one_line) {
        fmt::print(inv.output.out,
                   "{}\n",
                   report::fleet::fleet_node_line(*facts, pipeline::this_host_short_name()));
        return kExitOk;
    }
    const auto id =
        fmt::format("{:016x}", std::random_device{}() * 0x100000001ULL ^ std::random_device{}());
    for (const auto& line :
         report::fleet::fleet_node_lines(*facts, pipeline::this_host_short_name(), id)) {
        fmt::print(inv.output.out, "{}\n", line);
    }
    return kExitOk;
}

std::optional<int> expected(const FleetOptions& options) {
    return options.nodes > 0 ? std::optional<int>(options.nodes) : std::nullopt;
}

int judge_and_print(const Invocation& inv,
                    const report::fleet::FleetLines& lines,
                    const FleetOptions& options) {
    const auto report =
        policy::fleet::judge_fleet(lines.nodes, lines.unreadable, expected(options));
    if (inv.output.json) {
        fmt::print(inv.output.out, "{}\n", util::json_text(report::fleet::fleet_to_json(report)));
    } else {
        fmt::print(inv.output.out, "{}", report::fleet::fleet_to_text(report));
    }
    if (!options.html.empty()) {
        // Whole or not at all: a reader never sees half a page.
        const auto written =
            util::write_file_atomically(options.html, report::fleet::fleet_to_html(report));
        if (!written) {
            print_error(inv.output, "--html: " + written.error().message);
            return kExitError;
        }
    }
    return report.failed ? kExitFindings : kExitOk;
}

int run_merge(const Invocation& inv, const FleetOptions& options) {
    report::fleet::FleetLines all;
    for (const auto& file : options.files) {
        std::string text;
        if (file == "-") {
            text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
        } else if (auto read = util::read_file(file)) {
            text = std::move(*read);
        } else {
            print_error(inv.output, "fleet merge: " + read.error().message);
            return kExitError;
        }
        auto lines = report::fleet::parse_fleet_lines(text, file == "-" ? "stdin" : file);
        all.nodes.insert(all.nodes.end(), lines.nodes.begin(), lines.nodes.end());
        all.unreadable.insert(
            all.unreadable.end(), lines.unreadable.begin(), lines.unreadable.end());
    }
    return judge_and_print(inv, all, options);
}

// The global options given to this peergate, for the nodes' peergate (the environment
// travels with srun; flags do not).
std::vector<std::string> forwarded_globals(const GlobalOptions& global) {
    std::vector<std::string> out;
    for (const auto& [flag, value] : {std::pair{"--nvml-lib", global.nvml_lib},
                                      {"--cuda-lib", global.cuda_lib},
                                      {"--nvidia-smi", global.nvidia_smi},
                                      {"--host-root", global.host_root},
                                      {"--simulate", global.simulate}}) {
        if (!value.empty()) {
            out.insert(out.end(), {flag, value});
        }
    }
    return out;
}

util::Command srun_command(const Invocation& inv,
                           const FleetOptions& options,
                           const std::string& srun) {
    util::Command command;
    command.argv = {srun, "--ntasks-per-node=1", "--kill-on-bad-exit=0"};
    if (options.nodes > 0) {
        command.argv.insert(command.argv.end(), {"-N", std::to_string(options.nodes)});
    }
    command.argv.insert(command.argv.end(), options.srun_args.begin(), options.srun_args.end());
    command.argv.push_back(pipeline::installed_peergate());
    const auto globals = forwarded_globals(inv.options);
    command.argv.insert(command.argv.end(), globals.begin(), globals.end());
    command.argv.insert(command.argv.end(), {"fleet", "node"});
    if (options.node.doctor.probe) {
        command.argv.push_back("--probe");
    }
    if (options.node.doctor.soak_s > 0.0) {
        command.argv.insert(command.argv.end(),
                            {"--soak", fmt::format("{}", options.node.doctor.soak_s)});
    }
    if (!options.node.doctor.bandwidth.empty()) {
        command.argv.insert(command.argv.end(), {"--bandwidth", options.node.doctor.bandwidth});
    }
    command.env = inv.env;
    command.timeout = std::chrono::seconds(options.timeout_seconds);
    return command;
}

// A soak on every node must end before srun is stopped, or no node answers.
bool soak_fits(const Invocation& inv, const FleetOptions& options) {
    const double soak = options.node.doctor.soak_s;
    if (soak < options.timeout_seconds) {
        return true;
    }
    print_error(inv.output,
                fmt::format("fleet run: --soak {} s does not fit in --timeout {} s: srun would "
                            "stop the nodes before they answer; raise --timeout",
                            soak,
                            options.timeout_seconds));
    return false;
}

int run_run(const Invocation& inv, const FleetOptions& options) {
    if (!soak_fits(inv, options)) {
        return kExitError;
    }
    const auto srun = util::find_program("srun", inv.env.get("PATH").value_or("/usr/bin:/bin"));
    if (!srun || pipeline::installed_peergate().empty()) {
        print_error(
            inv.output,
            srun ? "fleet run: cannot find this peergate's own executable"
                 : "fleet run: srun is not on PATH (" + srun.error().message +
                       "); on a cluster without Slurm, run 'peergate fleet node' on each node "
                       "and 'peergate fleet merge' the lines");
        return kExitError;
    }
    const auto result = util::run_process(srun_command(inv, options, *srun));
    if (!result || result->timed_out) {
        print_error(inv.output,
                    result ? fmt::format("fleet run: srun ran past {} s and was stopped",
                                         options.timeout_seconds)
                           : "fleet run: " + result.error().message);
        return kExitError;
    }
    if (!options.save.empty()) {
        if (auto saved = util::write_file_atomically(options.save, result->out); !saved) {
            print_error(inv.output, "--save: " + saved.error().message);
            return kExitError;
        }
    }
    const auto lines = report::fleet::parse_fleet_lines(result->out, "srun");
    if (result->exit_code != 0 && lines.nodes.empty() && lines.unreadable.empty()) {
        print_error(inv.output,
                    fmt::format("fleet run: srun exited {} and no node answered:\n{}",
                                result->exit_code,
                                result->err));
        return kExitError;
    }
    if (result->exit_code != 0 && !inv.output.quiet) {
        fmt::print(inv.output.err, "peergate: srun exited {}:\n{}", result->exit_code, result->err);
    }
    return judge_and_print(inv, lines, options);
}

void add_node_options(CLI::App* sub, pipeline::ExportRequest& request) {
    sub->add_option("--gpus", request.doctor.gpus, "the GPUs examined: 0,1,3 or 'all' (default)");
    CLI::Option* probe = sub->add_flag(
        "--probe", request.doctor.probe, "also move data over every ordered pair and compare it");
    add_soak_option(sub, request.doctor.soak_s, probe);
    sub->add_option("--node-name",
                    request.node_name,
                    "the node's name (default: SLURMD_NODENAME, else the host name)");
    sub->add_option("--bandwidth",
                    request.doctor.bandwidth,
                    "this node's 'peergate bench --json' result: its pairs' rates join the "
                    "record, and fleet compares them by link class");
}

void add_node_command(CLI::App& fleet, FleetOptions& options) {
    options.node_app = fleet.add_subcommand(
        "node", "this node's answer as one JSON line (what fleet run runs on each node)");
    add_node_options(options.node_app, options.node);
    options.node_app->add_flag("--one-line",
                               options.one_line,
                               "the whole record on one line (by default a record longer than "
                               "1000 bytes is split into parts, which srun cannot mix up)");
}

void add_html_option(CLI::App* sub, std::string& html) {
    sub->add_option("--html",
                    html,
                    "also write the report as one self-contained HTML page to FILE (atomically): "
                    "the nodes, what differs, each node's findings");
}

void add_run_command(CLI::App& fleet, FleetOptions& options) {
    options.run_app = fleet.add_subcommand(
        "run", "run 'fleet node' on every node through srun, then judge the answers");
    options.run_app
        ->add_option(
            "--nodes,-N", options.nodes, "nodes to run on (srun -N); also how many must answer")
        ->check(whole_number(1, 1'000'000));
    CLI::Option* probe = options.run_app->add_flag(
        "--probe", options.node.doctor.probe, "each node also probes its pairs");
    add_soak_option(options.run_app, options.node.doctor.soak_s, probe);
    options.run_app
        ->add_option(
            "--timeout", options.timeout_seconds, "stop srun after SEC seconds (default 900)")
        ->check(whole_number(1, 7 * 24 * 3600));
    options.run_app->add_option(
        "--bandwidth",
        options.node.doctor.bandwidth,
        "FILE on every node: that node's 'peergate bench --json' result, compared by link class");
    options.run_app->add_option(
        "--save",
        options.save,
        "also write the nodes' lines to FILE (atomically), for fleet merge");
    add_html_option(options.run_app, options.html);
    options.run_app->add_option("srun_args",
                                options.srun_args,
                                "-- SRUN ARGS...: more srun options (partition, account, ...)");
}

void add_merge_command(CLI::App& fleet, FleetOptions& options) {
    options.merge_app = fleet.add_subcommand(
        "merge", "judge 'fleet node' lines collected otherwise (srun --label prefixes are fine)");
    options.merge_app->add_option("files", options.files, "files of JSON lines, - for stdin")
        ->required();
    options.merge_app->add_option("--nodes,-N", options.nodes, "how many nodes must have answered")
        ->check(whole_number(1, 1'000'000));
    add_html_option(options.merge_app, options.html);
}

}  // namespace

Command add_fleet_command(CLI::App& app) {
    auto options = std::make_shared<FleetOptions>();
    CLI::App* sub = app.add_subcommand(
        "fleet", "the same verdicts across a Slurm cluster, and the nodes that differ");
    sub->require_subcommand(1);
    add_node_command(*sub, *options);
    add_run_command(*sub, *options);
    const Command health = add_fleet_health(*sub);
    add_merge_command(*sub, *options);
    sub->footer(
        "Exit status: 0 every node healthy and like its peers, 1 a node failed, is missing or\n"
        "differs from most nodes (topology, GPU count, P2P), 2 usage error or srun failed to run.\n"
        "By hand: srun -N4 --ntasks-per-node=1 peergate fleet node > all.jsonl; peergate fleet "
        "merge all.jsonl");
    return Command{sub, [options, health](const Invocation& inv) {
                       if (health.app->parsed()) {
                           return health.run(inv);
                       }
                       if (options->node_app->parsed()) {
                           return run_node(inv, *options);
                       }
                       return options->run_app->parsed() ? run_run(inv, *options)
                                                         : run_merge(inv, *options);
                   }};
}

}  // namespace peergate::cli
