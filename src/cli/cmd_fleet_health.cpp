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
    if (options.drain) {
        auto read = pipeline::read_node_drain(inv, options.scontrol, node);
        if (!read) {
            print_error(inv.output, "fleet health --drain: " + read.error().message);
            return kExitError;
        }
        drain = *read;
    }
    const auto plan = policy::fleet::plan_health(facts->report, drain);
    print_plan(inv, node, plan);
    if (auto acted = pipeline::apply_health_plan(inv, options.scontrol, node, plan); !acted) {
        print_error(inv.output, "fleet health --drain: " + acted.error().message);
        return kExitError;
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
