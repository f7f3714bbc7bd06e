// SPDX-License-Identifier: Apache-2.0
// peergate export: the doctor's and the gate's verdicts in an ecosystem format, for the
// node_exporter textfile collector, Node Feature Discovery, Slurm's gres.conf or Graphviz.
#include "cli/commands.hpp"
#include "cli/doctor_gather.hpp"
#include "cli/gate_pipeline.hpp"
#include "peergate/version.hpp"
#include "report/export_dot.hpp"
#include "report/export_gres.hpp"
#include "report/export_nfd.hpp"
#include "report/export_prometheus.hpp"
#include "sources/host/device_minor.hpp"
#include "util/atomic_file.hpp"

#include <fmt/format.h>

#include <unistd.h>

#include <array>
#include <chrono>

namespace peergate::cli {

namespace {

struct ExportOptions {
    std::string format;
    std::string output;
    DoctorOptions doctor;
    std::string node_name;
    std::string gres_type;
    int expiry_hours = 0;
};

std::string short_host_name() {
    std::array<char, 256> name{};
    if (::gethostname(name.data(), name.size() - 1) != 0) {
        return "localhost";
    }
    const std::string full(name.data());
    return full.substr(0, full.find('.'));
}

// slurmd's name for the node: --node-name, else SLURMD_NODENAME, else the short host name.
std::string node_name(const Invocation& inv, const ExportOptions& options) {
    if (!options.node_name.empty()) {
        return options.node_name;
    }
    return inv.env.get("SLURMD_NODENAME").value_or(short_host_name());
}

// The gate's decision for the GPUs examined, on the topology the doctor read.
report::ExportGate gate_verdict(const Invocation& inv,
                                const std::string& gpus,
                                const model::Discovery& discovery) {
    auto request = parse_gate_request(gpus, "all");
    if (!request) {
        return {.p2p = false, .rule = "usage_error", .reason = request.error().message};
    }
    const auto decision =
        decide_safely([&] { return gate_input_from(discovery, inv.seams, inv.env, *request); },
                      inv.env,
                      *request);
    return {.p2p = decision.p2p, .rule = decision.rule, .reason = decision.reason};
}

util::Expected<report::ExportFacts> gather_facts(const Invocation& inv,
                                                 const ExportOptions& options) {
    const auto started = std::chrono::steady_clock::now();
    report::ExportFacts facts;
    auto doctor = gather_doctor_input(inv, options.doctor);
    if (!doctor) {
        return util::unexpected(doctor.error());
    }
    facts.doctor = std::move(*doctor);
    facts.report = policy::diagnose(facts.doctor);
    facts.gate = gate_verdict(inv, options.doctor.gpus, facts.doctor.discovery);
    if (const auto* topology = facts.doctor.discovery.described()) {
        facts.device_minors = sources::host::read_device_minors(
            sources::host::HostRoot(inv.seams.host_root), topology->gpus);
    }
    facts.run = report::ExportRun{
        .version = kVersion,
        .finished_unix = std::chrono::duration_cast<std::chrono::seconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count(),
        .duration_seconds =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count(),
        .node_name = node_name(inv, options),
        .gres_type = options.gres_type,
        .expiry_seconds = std::int64_t{options.expiry_hours} * 3600};
    if (!options.output.empty()) {
        if (const auto previous = util::read_file(options.output)) {
            facts.run.previous_success_unix = report::last_success_in(*previous);
        }
    }
    return facts;
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
                                            facts.doctor.discovery.reason));
    }
    return format == "gres" ? report::export_gres(facts) : report::export_dot(facts);
}

int run_export(const Invocation& inv, const ExportOptions& options) {
    const auto facts = gather_facts(inv, options);
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
    sub->add_option("--gpus", options->doctor.gpus, "the GPUs examined: 0,1,3 or 'all' (default)");
    sub->add_flag("--probe",
                  options->doctor.probe,
                  "also move data over every ordered pair and compare it (integrity labels and "
                  "metrics)");
    sub->add_option("--bandwidth",
                    options->doctor.bandwidth,
                    "a 'peergate bench --json' result: bandwidth metrics and labels");
    sub->add_option("--kernel-log", options->doctor.kernel_log, "as for doctor");
    sub->add_option("--node-name",
                    options->node_name,
                    "gres: the node's name (default: SLURMD_NODENAME, else the host name)");
    sub->add_option(
        "--gres-type", options->gres_type, "gres: Type= for every GPU (default: from its name)");
    sub->add_option("--expiry-hours",
                    options->expiry_hours,
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
