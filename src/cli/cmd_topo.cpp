// SPDX-License-Identifier: Apache-2.0
// peergate topo: the interconnect matrix, NVLink islands, NUMA/CPU affinity.
#include "cli/commands.hpp"
#include "pipeline/topology_view.hpp"
#include "report/topology/json.hpp"
#include "report/topology/text.hpp"
#include "util/json_text.hpp"

#include <fmt/format.h>

namespace peergate::cli {

namespace {

struct TopoOptions {
    std::string source = "auto";
    bool crosscheck = false;
    std::string from;
};

int run_topo(const Invocation& inv, const TopoOptions& options) {
    const auto view =
        pipeline::view_topology(inv, options.source, options.crosscheck, options.from);
    const model::Topology* described = view.discovery.described();
    if (inv.output.json) {
        auto doc = report::topology::topology_to_json(view.discovery);
        report::topology::add_nics(doc, view.nics, described);
        fmt::print(inv.output.out, "{}\n", util::json_text(doc));
    } else {
        const report::topology::TextStyle style{.color = inv.output.color,
                                                .verbose = inv.output.verbose};
        auto text = report::topology::topology_to_text(view.discovery, style);
        text += view.nics ? report::topology::nics_to_text(*view.nics, *described, style) : "";
        fmt::print(described != nullptr ? inv.output.out : inv.output.err, "{}", text);
    }
    return described != nullptr ? kExitOk : kExitError;
}

}  // namespace

Command add_topo_command(CLI::App& app) {
    auto options = std::make_shared<TopoOptions>();
    CLI::App* sub =
        app.add_subcommand("topo", "the interconnect matrix, NVLink islands and NUMA affinity");
    sub->add_option("--source",
                    options->source,
                    "which tier answers: auto (NVML, else nvidia-smi), nvml, smi")
        ->check(CLI::IsMember({"auto", "nvml", "smi"}));
    sub->add_flag(
        "--crosscheck",
        options->crosscheck,
        "run NVML and nvidia-smi and report where they disagree (env PEERGATE_TOPO_CROSSCHECK=1)");
    sub->add_option(
        "--from",
        options->from,
        "read a saved 'nvidia-smi topo -m' text or a machine file instead of asking the host");
    sub->footer(
        "Exit status: 0 readable (one GPU too: a 1x1 matrix), 2 unreadable (the reason is on "
        "stderr "
        "or in \"reason\").");
    return Command{sub, [options](const Invocation& inv) { return run_topo(inv, *options); }};
}

}  // namespace peergate::cli
