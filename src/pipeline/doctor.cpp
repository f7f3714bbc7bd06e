// SPDX-License-Identifier: Apache-2.0
#include "pipeline/doctor.hpp"

#include "pipeline/bandwidth_input.hpp"
#include "pipeline/discover.hpp"
#include "pipeline/doctor_layers.hpp"
#include "pipeline/probe_cache_io.hpp"
#include "pipeline/probe_sweep.hpp"
#include "pipeline/simulate.hpp"
#include "policy/gate/types.hpp"
#include "sources/host/host_facts_reader.hpp"
#include "sources/host/kernel_log_parser.hpp"
#include "sources/host/kernel_log_source.hpp"
#include "sources/host/vllm_p2p_cache.hpp"
#include "sources/nccl/nccl_topo_file.hpp"
#include "util/dynamic_library.hpp"
#include "util/subprocess.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdint>

namespace peergate::pipeline {

namespace {

policy::doctor::PartStatus library_status(const char* what,
                                          const std::vector<std::string>& candidates) {
    auto lib = util::DynamicLibrary::open_first(candidates);
    return policy::doctor::PartStatus{
        .what = what, .found = lib.has_value(), .detail = lib ? lib->path() : lib.error().message};
}

policy::doctor::PartStatus smi_status(const Context& ctx) {
    auto path = util::find_program(ctx.seams.nvidia_smi,
                                   ctx.env.get("PATH").value_or("/usr/local/bin:/usr/bin:/bin"));
    return policy::doctor::PartStatus{.what = "nvidia-smi",
                                      .found = path.has_value(),
                                      .detail = path ? *path : path.error().message};
}

// --bandwidth: each pair's P2P, staged and bidirectional rates from a `peergate bench --json`
// result.
util::Expected<void> add_bandwidth(const std::string& path, policy::doctor::DoctorInput& input) {
    auto file = read_bandwidth_file(path, input.discovery.described());
    if (!file) {
        return util::unexpected(file.error());
    }
    for (auto& layers : input.pairs) {
        for (const auto& sample : file->samples) {
            if (sample.src == layers.src && sample.dst == layers.dst) {
                layers.p2p_gbps = sample.gbps;
                layers.staged_gbps = sample.staged_gbps;
                layers.bidirectional_gbps = sample.bidirectional_gbps;
            }
        }
    }
    return {};
}

// The pair's largest serial copy that has a rate: the probe's view of the link.
const model::ProbeCell* largest_serial_copy(const model::ProbeResult& result, int src, int dst) {
    const model::ProbeCell* best = nullptr;
    for (const auto& cell : result.cells) {
        if (cell.src == src && cell.dst == dst && cell.mode == model::ProbeMode::serial &&
            cell.gbps && (best == nullptr || cell.size_bytes > best->size_bytes)) {
            best = &cell;
        }
    }
    return best;
}

// --probe: what `peergate probe --mode all --path all [--soak S]` does, the verdict cache
// included; each pair's verdict, its verdict per path, copy path and rate join its layers.
void probe_pairs(const Context& ctx, double soak_s, policy::doctor::DoctorInput& input) {
    ProbeSettings settings;
    settings.request.modes = {
        model::ProbeMode::serial, model::ProbeMode::bidirectional, model::ProbeMode::concurrent};
    settings.request.soak = std::chrono::milliseconds(static_cast<std::int64_t>(soak_s * 1000.0));
    settings.request.paths.assign(std::begin(model::kAllProbePaths),
                                  std::end(model::kAllProbePaths));
    input.probe = probe_selection(ctx, input.discovery, input.selection, settings);
    for (auto& layers : input.pairs) {
        for (const auto& pair : input.probe->pairs) {
            if (pair.src == layers.src && pair.dst == layers.dst) {
                layers.probe = model::to_string(pair.verdict);
                layers.probe_paths = pair.paths;
            }
        }
        if (const auto* cell = largest_serial_copy(*input.probe, layers.src, layers.dst)) {
            layers.probe_path = model::to_string(cell->path);
            layers.probe_gbps = cell->gbps;
        }
    }
}

// Without --probe: the verdict cache's result, when it was written on this boot and identity.
void read_cached_probe(const Context& ctx, policy::doctor::DoctorInput& input) {
    auto reading = read_probe_cache_if_present(ctx, input.discovery);
    if (reading && reading->verdict.valid && reading->entry) {
        input.cached_probe = std::move(reading->entry->result);
        input.cached_probe_written_at = std::move(reading->entry->written_at);
    }
}

// --gpus as ascending nvidia-smi indices (empty: every GPU), each one a GPU of `topology`
// (unchecked without one: the doctor then reports why no GPU could be listed).
util::Expected<std::vector<int>> examined_gpus(const std::string& text,
                                               const model::Topology* topology) {
    auto selection = policy::gate::Selection::parse(text);  // its errors name --gpus
    if (!selection || selection->kind != policy::gate::Selection::Kind::list) {
        return selection ? util::Expected<std::vector<int>>{} : util::unexpected(selection.error());
    }
    for (int id : selection->ids) {
        if (topology != nullptr && !topology->position_of(id)) {
            std::vector<int> known;
            for (const auto& gpu : topology->gpus) {
                known.push_back(gpu.index);
            }
            return util::unexpected(
                util::ErrorCode::invalid_input,
                fmt::format(
                    "--gpus: GPU {} is not on this host (GPUs: {})", id, fmt::join(known, ", ")));
        }
    }
    auto ids = selection->ids;
    std::sort(ids.begin(), ids.end());
    return ids;
}

}  // namespace

util::Expected<policy::doctor::DoctorInput> gather_doctor_input(const Context& ctx,
                                                                const DoctorOptions& options) {
    policy::doctor::DoctorInput input;
    input.parts.push_back(library_status("NVML library", ctx.seams.nvml_libraries));
    input.parts.push_back(library_status("CUDA driver library", {ctx.seams.cuda_library}));
    input.parts.push_back(smi_status(ctx));
    input.host = sources::host::read_host_facts(sources::host::HostRoot(ctx.seams.host_root));
    const bool any = input.parts[0].found || input.parts[2].found;
    // The NVML tier records the links and P2P status the layers need in its own session:
    // one nvmlInit, and a hung NVML costs one watchdog, not two.
    util::Expected<nvml::NvmlRecord> nvml_record =
        util::unexpected(util::ErrorCode::unavailable, "no NVIDIA tool found");
    if (any) {
        input.discovery = discover(ctx, "auto", false, &nvml_record);
    }
    const model::Topology* topology = input.discovery.described();
    auto selection = examined_gpus(options.gpus, topology);
    if (!selection) {
        return util::unexpected(selection.error());
    }
    input.selection = std::move(*selection);
    if (topology != nullptr) {
        read_pair_layers(ctx, *topology, std::move(nvml_record), input);
    }
    if (options.probe && !input.pairs.empty()) {  // two or more GPUs examined
        probe_pairs(ctx, options.soak_s, input);
        read_counters_after_probe(ctx, *topology, input);
    } else if (!input.pairs.empty()) {
        read_cached_probe(ctx, input);
    }
    if (!options.bandwidth.empty()) {
        PEERGATE_TRY(add_bandwidth(options.bandwidth, input));
    }
    input.vllm_p2p_caches =
        sources::host::read_vllm_p2p_caches(sources::host::vllm_cache_root(ctx.env));
    input.sglang_p2p_caches =
        sources::host::read_vllm_p2p_caches(sources::host::sglang_cache_root(ctx.env));
    input.nccl_topo_file = sources::nccl::read_nccl_topo_file(ctx.env, ctx.seams.host_root);
    const auto log = sources::host::read_kernel_log(ctx.seams, ctx.env, options.kernel_log);
    input.kernel_events = sources::host::parse_kernel_log(log.text);
    input.kernel_log_source = log.source;
    input.kernel_log_dropped_bytes = log.dropped_bytes;
    const auto machines = builtin_machines(locate_simulation_parts());
    const std::string preferred = "pcie-rtx6000ada-2x-iommu";
    if (std::find(machines.begin(), machines.end(), preferred) != machines.end()) {
        input.simulate_hint = preferred;
    } else if (!machines.empty()) {
        input.simulate_hint = machines.front();
    }
    return input;
}

}  // namespace peergate::pipeline
