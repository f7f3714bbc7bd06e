// SPDX-License-Identifier: Apache-2.0
// peergate topo: the interconnect matrix, NVLink islands, NUMA/CPU affinity.
#include "cli/commands.hpp"
#include "pipeline/discover.hpp"
#include "pipeline/nic_affinity.hpp"
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
    auto discovery = options.from.empty()
                         ? pipeline::discover(inv, options.source, options.crosscheck)
                         : pipeline::read_topology_file(options.from);
    const model::Topology* described = discovery.described();
    // The NICs sysfs shows, on this host or the simulated one; a saved file has no sysfs.
    std::optional<policy::placement::NicAffinity> nics;
    if (options.from.empty() && described != nullptr) {
        nics = pipeline::read_nic_affinity(inv, *described);
    }
    if (inv.output.json) {
        auto doc = report::topology::topology_to_json(discovery);
        report::topology::add_nics(doc, nics, described);
        fmt::print(inv.output.out, "{}\n", util::json_text(doc));
    } else {
        const report::topology::TextStyle style{.color = inv.output.color,
                                                .verbose = inv.output.verbose};
        auto text = report::topology::topology_to_text(discovery, style);
        text += nics ? report::topology::nics_to_text(*nics, *described, style) : "";
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
