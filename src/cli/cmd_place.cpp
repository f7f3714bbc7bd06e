// SPDX-License-Identifier: Apache-2.0
// peergate place: the best groups of K GPUs for tensor parallelism, and how to launch on them.
#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "model/gpu_list.hpp"
#include "pipeline/bandwidth_input.hpp"
#include "pipeline/discover.hpp"
#include "pipeline/nic_affinity.hpp"
#include "policy/placement/placement.hpp"
#include "report/placement/json.hpp"
#include "report/placement/text.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

namespace peergate::cli {

namespace {

struct PlaceOptions {
    int size = 0;
    std::optional<int> count;
    std::string gpus = "all";
    std::optional<std::string> require;
    std::string bandwidth;
    std::string from;
    std::string source = "auto";
    std::string profile = "all";
};

// --require: the same grammar, but 'all' names no particular GPUs; not given: none.
util::Expected<std::vector<int>> parse_required(const std::optional<std::string>& text) {
    if (!text) {
        return std::vector<int>{};
    }
    auto ids = model::parse_gpu_list(*text, "--require");
    if (!ids) {
        return util::unexpected(ids.error());
    }
    if (!*ids) {
        return util::unexpected(util::ErrorCode::invalid_input,
                                "--require 'all': name the GPUs that must share the first "
                                "group, such as 0,1");
    }
    return std::move(**ids);
}

util::Expected<policy::placement::PlacementRequest> build_request(const PlaceOptions& options,
                                                                  const model::Topology& topology) {
    policy::placement::PlacementRequest request{.size = options.size, .count = options.count};
    auto candidates = model::parse_gpu_indices(options.gpus);
    auto required = parse_required(options.require);
    if (!candidates || !required) {
        return util::unexpected(candidates ? required.error() : candidates.error());
    }
    request.candidates = std::move(*candidates);
    request.required = std::move(*required);
    if (!options.bandwidth.empty()) {
        auto file = pipeline::read_bandwidth_file(options.bandwidth, &topology);
        if (!file) {
            return util::unexpected(file.error());
        }
        request.bandwidth = std::move(file->samples);
    }
    return request;
}

int run_place(const Invocation& inv, const PlaceOptions& options) {
    const auto discovery = options.from.empty() ? pipeline::discover(inv, options.source, false)
                                                : pipeline::read_topology_file(options.from);
    const model::Topology* topology = discovery.described();
    if (topology == nullptr) {
        print_error(inv.output, "topology unreadable: " + discovery.reason);
        return kExitError;
    }
    auto request = build_request(options, *topology);
    if (!request) {
        print_error(inv.output, request.error().message);
        return kExitError;
    }
    const auto result = policy::placement::place(*topology, *request);
    if (!result) {
        print_error(inv.output, result.error().message);
        return kExitError;
    }
    // A saved file has no sysfs: its NICs are unknown, not absent.
    const auto nics = options.from.empty()
                          ? std::optional(pipeline::read_nic_affinity(inv, *topology))
                          : std::nullopt;
    if (inv.output.json) {
        fmt::print(inv.output.out,
                   "{}\n",
                   report::placement::placement_to_json(*result, *topology, options.profile, nics)
                       .dump(2));
    } else {
        fmt::print(inv.output.out,
                   "{}",
                   report::placement::placement_to_text(*result, *topology, options.profile, nics));
    }
    return kExitOk;
}

}  // namespace

Command add_place_command(CLI::App& app) {
    auto options = std::make_shared<PlaceOptions>();
    CLI::App* sub = app.add_subcommand(
        "place", "the best groups of K GPUs (tensor parallelism) and how to launch on them");
    sub->add_option("--size", options->size, "GPUs per group (K)")
        ->required()
        ->check(whole_number(1, 4096));
    sub->add_option(
        "--count", options->count, "groups (G); default: as many as fit, floor(candidates / K)");
    sub->add_option(
        "--gpus", options->gpus, "candidate GPUs, nvidia-smi indices: LIST (0,1,3) or all");
    sub->add_option("--require", options->require, "GPUs that must share the first group: LIST");
    sub->add_option(
        "--bandwidth",
        options->bandwidth,
        "weigh pairs by the measured P2P GB/s (slower direction) of a peergate.bench/v1 file");
    sub->add_option(
        "--from", options->from, "read a saved 'nvidia-smi topo -m' text or a machine file");
    sub->add_option("--source", options->source, "which tier answers: auto, nvml, smi")
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
