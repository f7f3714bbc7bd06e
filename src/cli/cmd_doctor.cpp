// SPDX-License-Identifier: Apache-2.0
// peergate doctor: every layer's answer, the disagreements, the root cause, the remedy.
#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "pipeline/assess_machine.hpp"
#include "pipeline/doctor.hpp"
#include "pipeline/identity_join.hpp"
#include "policy/doctor/doctor.hpp"
#include "report/doctor/html.hpp"
#include "report/doctor/json.hpp"
#include "report/doctor/text.hpp"
#include "util/atomic_file.hpp"
#include "util/json_text.hpp"

#include <fmt/format.h>

namespace peergate::cli {

namespace {

int run_doctor(const Invocation& inv, const pipeline::DoctorOptions& options) {
    const auto assessed = pipeline::assess_machine(inv, options, pipeline::self_executable());
    if (!assessed) {
        print_error(inv.output, assessed.error().message);
        return kExitError;
    }
    const auto& [input, report, gate, assessment] = *assessed;
    if (inv.output.json) {
        fmt::print(inv.output.out,
                   "{}\n",
                   util::json_text(report::doctor::doctor_to_json(input, report, assessment)));
    } else {
        fmt::print(inv.output.out,
                   "{}",
                   report::doctor::doctor_to_text(input, report, assessment, inv.output.color));
    }
    if (!options.html.empty()) {
        // Whole or not at all: a reader never sees half a page.
        const auto written = util::write_file_atomically(
            options.html, report::doctor::doctor_to_html(input, report, assessment));
        if (!written) {
            print_error(inv.output, "--html: " + written.error().message);
            return kExitError;
        }
    }
    return policy::doctor::exit_status(report.verdict);
}

}  // namespace

Command add_doctor_command(CLI::App& app) {
    auto options = std::make_shared<pipeline::DoctorOptions>();
    CLI::App* sub = app.add_subcommand(
        "doctor", "every layer's answer per pair, the root cause and the remedy");
    sub->add_option("--gpus",
                    options->gpus,
                    "nvidia-smi indices (PCI bus order) such as 0,1,3, or 'all' (default): the "
                    "GPUs whose pairs are examined");
    CLI::Option* probe =
        sub->add_flag("--probe",
                      options->probe,
                      "also move data over every ordered pair and compare it, in every mode, as "
                      "'peergate probe --mode all' does (its verdict is cached for the gate)");
    add_soak_option(sub, options->soak_s, probe);
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
