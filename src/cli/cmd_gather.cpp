// SPDX-License-Identifier: Apache-2.0
// peergate gather: write a machine file from this host (or the host behind the seams).
#include "cli/commands.hpp"
#include "pipeline/gather_machine.hpp"
#include "snapshot/machine_file_text.hpp"
#include "util/atomic_file.hpp"
#include "util/json_text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdint>

namespace peergate::cli {

namespace {

struct GatherOptions {
    std::string output;
    std::string name = "gathered";
    double nvml_timeout_s = 10.0;  // the watchdog of the NVML and CUDA driver steps
};

void report_notes(const Invocation& inv, const std::vector<std::string>& notes) {
    if (inv.output.quiet || inv.output.json) {
        return;
    }
    for (const auto& note : notes) {
        fmt::print(inv.output.err, "peergate: gather: note: {}\n", note);
    }
}

int run_gather(const Invocation& inv, const GatherOptions& options) {
    std::vector<std::string> notes;
    const auto watchdog =
        std::chrono::milliseconds(static_cast<std::int64_t>(options.nvml_timeout_s * 1000.0));
    auto machine = pipeline::gather_machine(inv, options.name, notes, watchdog);
    if (!machine) {
        print_error(inv.output, "gather: " + machine.error().message);
        return kExitError;
    }
    const std::string text = snapshot::to_json_text(*machine);
    // Never leave a file that --simulate would refuse: check it reads back as written.
    if (auto again = snapshot::parse_machine(text); !again || !(*again == *machine)) {
        print_error(inv.output,
                    "gather: the recorded machine does not read back: " +
                        (again ? std::string("fields differ") : again.error().message));
        return kExitError;
    }
    if (auto written = util::write_file_atomically(options.output, text); !written) {
        print_error(inv.output, "gather: " + written.error().message);
        return kExitError;
    }
    report_notes(inv, notes);
    if (inv.output.json) {
        const nlohmann::ordered_json summary{{"schema", "peergate.gather/v1"},
                                             {"output", options.output},
                                             {"gpus", machine->gpus.size()},
                                             {"notes", notes}};
        fmt::print(inv.output.out, "{}\n", util::json_text(summary));
    } else if (!inv.output.quiet) {
        fmt::print(inv.output.out,
                   "wrote {} ({} GPUs); replay it with: peergate --simulate {} topo\n",
                   options.output,
                   machine->gpus.size(),
                   options.output);
    }
    return kExitOk;
}

}  // namespace

Command add_gather_command(CLI::App& app) {
    auto options = std::make_shared<GatherOptions>();
    CLI::App* sub =
        app.add_subcommand("gather", "write a machine file (peergate.machine/v1) from this host");
    sub->add_option(
           "--output,-o", options->output, "where to write the machine file (written atomically)")
        ->required();
    sub->add_option("--name", options->name, "the machine's name in the file (default: gathered)");
    sub->add_option("--nvml-timeout",
                    options->nvml_timeout_s,
                    "watchdog, seconds, for the NVML and CUDA driver answers (a hung driver is "
                    "abandoned; default 10)")
        ->check(CLI::Range(0.05, 600.0));
    sub->footer(
        "Records nvidia-smi's topo -m and --query-gpu texts, the parsed GPUs and matrix, NVML's "
        "NVLinks and P2P status per caps index (the GPUs and matrix too without nvidia-smi), the "
        "CUDA "
        "driver's version and cuDeviceCanAccessPeer per pair, and host facts (IOMMU, hypervisor, "
        "kernel cmdline, boot id). Replay: peergate --simulate FILE ...\n"
        "Exit status: 0 written, 2 nothing usable to record (no file is written).");
    return Command{sub, [options](const Invocation& inv) { return run_gather(inv, *options); }};
}

}  // namespace peergate::cli
