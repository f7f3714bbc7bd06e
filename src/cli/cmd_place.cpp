// SPDX-License-Identifier: Apache-2.0
// peergate place: the best groups of K GPUs for tensor parallelism, and how to launch on them.
#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "pipeline/placement.hpp"
#include "report/placement/json.hpp"
#include "report/placement/text.hpp"

#include <fmt/format.h>

namespace peergate::cli {

namespace {

struct PlaceOptions {
    pipeline::PlacementQuery query;
    std::string profile = "all";
};

int run_place(const Invocation& inv, const PlaceOptions& options) {
    const auto placed = pipeline::place_groups(inv, options.query);
    if (!placed) {
        print_error(inv.output, placed.error().message);
        return kExitError;
    }
    if (inv.output.json) {
        fmt::print(inv.output.out,
                   "{}\n",
                   report::placement::placement_to_json(
                       placed->result, placed->topology, options.profile, placed->nics)
                       .dump(2));
    } else {
        fmt::print(inv.output.out,
                   "{}",
                   report::placement::placement_to_text(
                       placed->result, placed->topology, options.profile, placed->nics));
    }
    return kExitOk;
}

}  // namespace

Command add_place_command(CLI::App& app) {
    auto options = std::make_shared<PlaceOptions>();
    CLI::App* sub = app.add_subcommand(
        "place", "the best groups of K GPUs (tensor parallelism) and how to launch on them");
    sub->add_option("--size", options->query.size, "GPUs per group (K)")
        ->required()
        ->check(whole_number(1, 4096));
    sub->add_option("--count",
                    options->query.count,
                    "groups (G); default: as many as fit, floor(candidates / K)");
    sub->add_option(
        "--gpus", options->query.gpus, "candidate GPUs, nvidia-smi indices: LIST (0,1,3) or all");
    sub->add_option(
        "--require", options->query.require, "GPUs that must share the first group: LIST");
    sub->add_option(
        "--bandwidth",
        options->query.bandwidth,
        "weigh pairs by the measured P2P GB/s (slower direction) of a peergate.bench/v1 file");
    sub->add_option(
        "--from", options->query.from, "read a saved 'nvidia-smi topo -m' text or a machine file");
    sub->add_option("--source", options->query.source, "which tier answers: auto, nvml, smi")
        ->check(CLI::IsMember({"auto", "nvml", "smi"}));
    sub->add_option("--for", options->profile, "profile for the printed 'peergate exec' lines")
        ->check(CLI::IsMember({"llama.cpp", "nccl", "vllm", "sglang", "all"}));
    sub->footer(
        "Objective, in order: the weakest link over all groups (NV<n> 1000+n, PIX 50, PXB 40, PHB "
        "30, NODE 20,\n"
        "SYS 10, or GB/s), the sum of each group's weakest link, the sum of all pair weights "
        "inside groups,\n"
        "fewer NUMA nodes per group; ties go to the smallest GPU indices.\n"
        "Exit status: 0 placed, 2 impossible (K x G > candidates) or the topology is unreadable.");
    return Command{sub, [options](const Invocation& inv) { return run_place(inv, *options); }};
}

}  // namespace peergate::cli
