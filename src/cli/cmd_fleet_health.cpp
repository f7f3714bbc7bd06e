// SPDX-License-Identifier: Apache-2.0
// peergate fleet health: one line, ok or fail, for a Slurm health check or LBNL NHC's
// check_cmd_output; with --drain, the node drains itself when it fails and resumes when it
// is healthy again, if peergate was the one that drained it. Slurm runs health checks as root
// with PATH unset and kills them after 60 s: scontrol is run by absolute path, with a timeout.
#include "cli/cmd_fleet_health.hpp"

#include "pipeline/export_gather.hpp"
#include "pipeline/identity_join.hpp"
#include "pipeline/slurm_drain.hpp"
#include "policy/fleet/slurm_health.hpp"
#include "util/json_text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>

namespace peergate::cli {

namespace {

struct HealthOptions {
    pipeline::ExportRequest node;
    bool drain = false;
    std::string scontrol = "/usr/bin/scontrol";
    std::string slurm_conf;  // --slurm-conf; "" finds it (pipeline::choose_scontrol)
};

std::string_view action_name(policy::fleet::SlurmAction action) {
    return action == policy::fleet::SlurmAction::drain    ? "drain"
           : action == policy::fleet::SlurmAction::resume ? "resume"
                                                          : "none";
}

void print_plan(const Invocation& inv,
                const std::string& node,
                const policy::fleet::HealthPlan& plan) {
    if (!inv.output.json) {
        fmt::print(inv.output.out, "{}\n", plan.line);
        if (inv.output.verbose) {
            fmt::print(inv.output.err,
                       "peergate: {}: {} ({})\n",
                       node,
                       action_name(plan.action),
                       plan.why);
        }
        return;
    }
    const nlohmann::ordered_json doc = {{"schema", "peergate.fleet_health/v1"},
                                        {"node", node},
                                        {"healthy", plan.healthy},
                                        {"line", plan.line},
                                        {"action", action_name(plan.action)},
                                        {"reason",
                                         plan.reason.empty() ? nlohmann::ordered_json(nullptr)
                                                             : nlohmann::ordered_json(plan.reason)},
                                        {"why", plan.why}};
    fmt::print(inv.output.out, "{}\n", util::json_text(doc));
}

// An error of --drain, on stderr and, in text, on stdout too: slurmd logs only a health
// check's stdout ("health_check failed: rc:2 output:..."), so that is where an admin looks.
int drain_failed(const Invocation& inv, const std::string& message) {
    print_error(inv.output, "fleet health --drain: " + message);
    if (!inv.output.json) {
        fmt::print(inv.output.out, "error: fleet health --drain: {}\n", message);
    }
    return kExitError;
}

int run_health(const Invocation& inv, const HealthOptions& options) {
    auto request = options.node;
    request.identity_helper = pipeline::self_executable();  // the gate's identity join
    const auto facts = pipeline::gather_export_facts(inv, request);
    if (!facts) {
        print_error(inv.output, facts.error().message);
        return kExitError;
    }
    const std::string& node = facts->run.node_name;
    std::optional<policy::fleet::SlurmNodeDrain> drain;
    pipeline::Scontrol scontrol{.program = options.scontrol};
    if (options.drain) {
        scontrol = pipeline::choose_scontrol(inv, options.scontrol, options.slurm_conf);
        if (inv.output.verbose) {
            fmt::print(inv.output.err,
                       "peergate: slurm.conf: {} ({})\n",
                       scontrol.slurm_conf.empty() ? "scontrol's default" : scontrol.slurm_conf,
                       scontrol.why);
        }
        auto read = pipeline::read_node_drain(inv, scontrol, node);
        if (!read) {
            return drain_failed(inv, read.error().message);
        }
        drain = *read;
    }
    const auto plan = policy::fleet::plan_health(facts->report, drain);
    print_plan(inv, node, plan);
    if (auto acted = pipeline::apply_health_plan(inv, scontrol, node, plan); !acted) {
        return drain_failed(inv, acted.error().message);
    }
    return plan.healthy ? kExitOk : kExitFindings;
}

}  // namespace

Command add_fleet_health(CLI::App& fleet) {
    auto options = std::make_shared<HealthOptions>();
    CLI::App* sub = fleet.add_subcommand(
        "health", "one line, ok or fail, for a Slurm health check; --drain acts on it");
    sub->add_flag(
        "--drain",
        options->drain,
        "drain this node when it fails (Reason=\"peergate: ...\"), and resume it when healthy if "
        "peergate drained it; a node someone else drained is left alone");
    sub->add_option("--scontrol",
                    options->scontrol,
                    "scontrol to run (default /usr/bin/scontrol: health checks run without PATH)");
    sub->add_option("--slurm-conf",
                    options->slurm_conf,
                    "slurm.conf for scontrol (SLURM_CONF; default: SLURM_CONF, else the one the "
                    "root slurmd that runs this health check was started with, else scontrol's)");
    sub->add_option(
        "--gpus", options->node.doctor.gpus, "the GPUs examined: 0,1,3 or 'all' (default)");
    sub->add_flag("--probe",
                  options->node.doctor.probe,
                  "also move data over every pair (mind Slurm's 60 s limit)");
    sub->add_option("--node-name",
                    options->node.node_name,
                    "the node's name (default: SLURMD_NODENAME, else the host name)");
    return Command{sub, [options](const Invocation& inv) { return run_health(inv, *options); }};
}

}  // namespace peergate::cli
