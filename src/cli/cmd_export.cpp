// SPDX-License-Identifier: Apache-2.0
// peergate export: the doctor's and the gate's verdicts in an ecosystem format, for the
// node_exporter textfile collector, Node Feature Discovery, Slurm's gres.conf or Graphviz.
#include "cli/commands.hpp"
#include "cli/export_gather.hpp"
#include "report/export_dot.hpp"
#include "report/export_gres.hpp"
#include "report/export_nfd.hpp"
#include "report/export_prometheus.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

namespace peergate::cli {

namespace {

struct ExportOptions {
    std::string format;
    std::string output;
    ExportRequest request;
};

// Why no topology was read: the tiers' reason, or (when none ran) the parts not found.
std::string no_topology_reason(const policy::DoctorInput& doctor) {
    if (!doctor.discovery.reason.empty()) {
        return doctor.discovery.reason;
    }
    std::vector<std::string> missing;
    for (const auto& part : doctor.parts) {
        if (!part.found) {
            missing.push_back(part.what + ": " + part.detail);
        }
    }
    return missing.empty() ? "no tier answered" : util::join(missing, "; ");
}

util::Expected<std::string> render(const std::string& format, const report::ExportFacts& facts) {
    if (format == "prometheus") {
        return report::export_prometheus(facts);
    }
    if (format == "nfd") {
        return report::export_nfd(facts);
    }
    if (facts.doctor.discovery.described() == nullptr) {
        return util::unexpected(util::ErrorCode::unavailable,
                                fmt::format("export {}: no GPU topology to draw from ({})",
                                            format,
                                            no_topology_reason(facts.doctor)));
    }
    return format == "gres" ? report::export_gres(facts) : report::export_dot(facts);
}

int run_export(const Invocation& inv, const ExportOptions& options) {
    ExportRequest request = options.request;
    request.previous_file = options.output;
    const auto facts = gather_export_facts(inv, request);
    if (!facts) {
        print_error(inv.output, facts.error().message);
        return kExitError;
    }
    const auto text = render(options.format, *facts);
    if (!text) {
        print_error(inv.output, text.error().message);
        return kExitError;
    }
    if (options.output.empty()) {
        fmt::print(inv.output.out, "{}", *text);
        return kExitOk;
    }
    // Whole or not at all: a collector never reads half a file.
    const auto written = util::write_file_atomically(options.output, *text);
    if (!written) {
        print_error(inv.output, "--output: " + written.error().message);
        return kExitError;
    }
    return kExitOk;
}

}  // namespace

Command add_export_command(CLI::App& app) {
    auto options = std::make_shared<ExportOptions>();
    CLI::App* sub = app.add_subcommand(
        "export", "the verdicts as a Prometheus textfile, NFD labels, gres.conf or Graphviz");
    sub->add_option("format",
                    options->format,
                    "prometheus (node_exporter textfile), nfd (Node Feature Discovery labels), "
                    "gres (Slurm gres.conf lines), dot (Graphviz)")
        ->required()
        ->check(CLI::IsMember({"prometheus", "nfd", "gres", "dot"}));
    sub->add_option("--output",
                    options->output,
                    "write FILE atomically (a hidden temporary beside it, then rename) instead of "
                    "stdout");
    sub->add_option(
        "--gpus", options->request.doctor.gpus, "the GPUs examined: 0,1,3 or 'all' (default)");
    sub->add_flag("--probe",
                  options->request.doctor.probe,
                  "also move data over every ordered pair and compare it (integrity labels and "
                  "metrics)");
    sub->add_option("--bandwidth",
                    options->request.doctor.bandwidth,
                    "a 'peergate bench --json' result: bandwidth metrics and labels");
    sub->add_option("--kernel-log", options->request.doctor.kernel_log, "as for doctor");
    sub->add_option("--node-name",
                    options->request.node_name,
                    "gres: the node's name (default: SLURMD_NODENAME, else the host name)");
    sub->add_option("--gres-type",
                    options->request.gres_type,
                    "gres: Type= for every GPU (default: from its name)");
    sub->add_option("--expiry-hours",
                    options->request.expiry_hours,
                    "nfd: labels expire this many hours after the run, unless rewritten (at least "
                    "twice the run interval; default: never)")
        ->check(CLI::NonNegativeNumber);
    sub->footer(
        "Exit status: 0 written (whatever the verdict), 2 usage error or nothing to export.\n"
        "Textfile collector: peergate export prometheus --output "
        "/var/lib/prometheus/node-exporter/peergate.prom\n"
        "NFD: peergate export nfd --expiry-hours 2 --output "
        "/etc/kubernetes/node-feature-discovery/features.d/peergate");
    return Command{sub, [options](const Invocation& inv) { return run_export(inv, *options); }};
}

}  // namespace peergate::cli
