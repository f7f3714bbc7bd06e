// SPDX-License-Identifier: Apache-2.0
// peergate doctor: every layer's answer, the disagreements, the root cause, the remedy.
#include "cli/bench_file.hpp"
#include "cli/commands.hpp"
#include "cli/doctor_layers.hpp"
#include "cli/kernel_log_input.hpp"
#include "cli/probe_sweep.hpp"
#include "cli/simulate.hpp"
#include "cli/topology_input.hpp"
#include "policy/doctor.hpp"
#include "policy/gate_types.hpp"
#include "report/doctor_html.hpp"
#include "report/doctor_render.hpp"
#include "report/json_text.hpp"
#include "sources/host/host_facts_reader.hpp"
#include "sources/host/kernel_log_parser.hpp"
#include "util/atomic_file.hpp"
#include "util/dynamic_library.hpp"
#include "util/subprocess.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace peergate::cli {

namespace {

policy::PartStatus library_status(const char* what, const std::vector<std::string>& candidates) {
    auto lib = util::DynamicLibrary::open_first(candidates);
    return policy::PartStatus{
        .what = what, .found = lib.has_value(), .detail = lib ? lib->path() : lib.error().message};
}

policy::PartStatus smi_status(const Invocation& inv) {
    auto path = util::find_program(inv.seams.nvidia_smi,
                                   inv.env.get("PATH").value_or("/usr/local/bin:/usr/bin:/bin"));
    return policy::PartStatus{.what = "nvidia-smi",
                              .found = path.has_value(),
                              .detail = path ? *path : path.error().message};
}

struct DoctorOptions {
    std::string kernel_log;
    std::string gpus = "all";
    bool probe = false;
    std::string html;
    std::string bandwidth;
};

// --bandwidth: each pair's P2P and staged rates from a `peergate bench --json` result.
util::Expected<void> add_bandwidth(const std::string& path, policy::DoctorInput& input) {
    auto samples = read_bench_samples(path);
    if (!samples) {
        return util::unexpected(util::ErrorCode::invalid_input,
                                "--bandwidth " + samples.error().message);
    }
    for (auto& layers : input.pairs) {
        for (const auto& sample : *samples) {
            if (sample.src == layers.src && sample.dst == layers.dst) {
                layers.p2p_gbps = sample.gbps;
                layers.staged_gbps = sample.staged_gbps;
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

// --probe: what `peergate probe --mode all` does, the verdict cache included; each pair's
// verdict, copy path and rate join its layers.
void probe_pairs(const Invocation& inv, policy::DoctorInput& input) {
    ProbeSettings settings;
    settings.request.modes = {
        model::ProbeMode::serial, model::ProbeMode::bidirectional, model::ProbeMode::concurrent};
    input.probe = probe_selection(inv, input.discovery, input.selection, settings);
    for (auto& layers : input.pairs) {
        for (const auto& pair : input.probe->pairs) {
            if (pair.src == layers.src && pair.dst == layers.dst) {
                layers.probe = model::to_string(pair.verdict);
            }
        }
        if (const auto* cell = largest_serial_copy(*input.probe, layers.src, layers.dst)) {
            layers.probe_path = model::to_string(cell->path);
            layers.probe_gbps = cell->gbps;
        }
    }
}

// --gpus as ascending nvidia-smi indices (empty: every GPU), each one a GPU of `topology`
// (unchecked without one: the doctor then reports why no GPU could be listed).
util::Expected<std::vector<int>> examined_gpus(const std::string& text,
                                               const model::Topology* topology) {
    auto selection = policy::Selection::parse(text);  // its errors name --gpus
    if (!selection || selection->kind != policy::Selection::Kind::list) {
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

util::Expected<policy::DoctorInput> gather(const Invocation& inv, const DoctorOptions& options) {
    policy::DoctorInput input;
    input.parts.push_back(library_status("NVML library", inv.seams.nvml_libraries));
    input.parts.push_back(library_status("CUDA driver library", {inv.seams.cuda_library}));
    input.parts.push_back(smi_status(inv));
    input.host = sources::host::read_host_facts(sources::host::HostRoot(inv.seams.host_root));
    const bool any = input.parts[0].found || input.parts[2].found;
    if (any) {
        input.discovery = discover(inv, "auto", false);
    }
    const model::Topology* topology = input.discovery.described();
    auto selection = examined_gpus(options.gpus, topology);
    if (!selection) {
        return util::unexpected(selection.error());
    }
    input.selection = std::move(*selection);
    if (topology != nullptr) {
        read_pair_layers(inv, *topology, input);
    }
    if (options.probe && !input.pairs.empty()) {  // two or more GPUs examined
        probe_pairs(inv, input);
    }
    if (!options.bandwidth.empty()) {
        PEERGATE_TRY(add_bandwidth(options.bandwidth, input));
    }
    const auto log = read_kernel_log(inv, options.kernel_log);
    input.kernel_events = sources::host::parse_kernel_log(log.text);
    input.kernel_log_source = log.source;
    const auto machines = builtin_machines(locate_simulation_parts());
    const std::string preferred = "pcie-rtx6000ada-2x-iommu";
    if (std::find(machines.begin(), machines.end(), preferred) != machines.end()) {
        input.simulate_hint = preferred;
    } else if (!machines.empty()) {
        input.simulate_hint = machines.front();
    }
    return input;
}

int run_doctor(const Invocation& inv, const DoctorOptions& options) {
    const auto gathered = gather(inv, options);
    if (!gathered) {
        print_error(inv.output, gathered.error().message);
        return kExitError;
    }
    const auto& input = *gathered;
    const auto report = policy::diagnose(input);
    if (inv.output.json) {
        fmt::print(
            inv.output.out, "{}\n", report::json_text(report::doctor_to_json(input, report)));
    } else {
        fmt::print(inv.output.out, "{}", report::doctor_to_text(input, report, inv.output.color));
    }
    if (!options.html.empty()) {
        // Whole or not at all: a reader never sees half a page.
        const auto written =
            util::write_file_atomically(options.html, report::doctor_to_html(input, report));
        if (!written) {
            print_error(inv.output, "--html: " + written.error().message);
            return kExitError;
        }
    }
    return policy::exit_status(report.verdict);
}

}  // namespace

Command add_doctor_command(CLI::App& app) {
    auto options = std::make_shared<DoctorOptions>();
    CLI::App* sub = app.add_subcommand(
        "doctor", "every layer's answer per pair, the root cause and the remedy");
    sub->add_option("--gpus",
                    options->gpus,
                    "nvidia-smi indices (PCI bus order) such as 0,1,3, or 'all' (default): the "
                    "GPUs whose pairs are examined");
    sub->add_flag("--probe",
                  options->probe,
                  "also move data over every ordered pair and compare it, in every mode, as "
                  "'peergate probe --mode all' does (its verdict is cached for the gate)");
    sub->add_option("--bandwidth",
                    options->bandwidth,
                    "a 'peergate bench --json' result: each pair's P2P and staged rates join its "
                    "layers, and P2P slower than staging is a finding");
    sub->add_option("--html",
                    options->html,
                    "also write the report as one self-contained HTML page to FILE (atomically)");
    sub->add_option("--kernel-log",
                    options->kernel_log,
                    "kernel log to read for Xids and IOMMU faults: a FILE, or - for stdin "
                    "(default: dmesg on a live host, the machine's log under --simulate)");
    sub->footer(
        "Exit status: 0 healthy, 1 problems, 2 inconclusive (e.g. no NVIDIA driver).\n"
        "Demo without a GPU: peergate --simulate pcie-rtx6000ada-2x-iommu doctor");
    return Command{sub, [options](const Invocation& inv) { return run_doctor(inv, *options); }};
}

}  // namespace peergate::cli
