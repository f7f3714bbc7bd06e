// SPDX-License-Identifier: Apache-2.0
// peergate export: the doctor's and the gate's verdicts in an ecosystem format, for the
// node_exporter textfile collector, Node Feature Discovery, Slurm's gres.conf or Graphviz.
#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "pipeline/export_gather.hpp"
#include "pipeline/identity_join.hpp"
#include "report/exports/dot.hpp"
#include "report/exports/gres.hpp"
#include "report/exports/nccl_topo.hpp"
#include "report/exports/nfd.hpp"
#include "report/exports/prometheus.hpp"
#include "util/atomic_file.hpp"
#include "util/strings.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <vector>

namespace peergate::cli {

namespace {

struct ExportOptions {
    std::string format;
    std::string output;
    std::vector<std::string> also;     // FORMAT=FILE: more formats from the same read of the host
    std::vector<std::string> bus_ids;  // nccl-topo: HOST=VM
    pipeline::ExportRequest request;
};

constexpr std::array<std::string_view, 5> kFormats = {
    "prometheus", "nfd", "gres", "dot", "nccl-topo"};

// One file to write ("" : stdout) in one format.
struct Target {
    std::string format;
    std::string path;
    std::string option;  // how the command line named it, for errors: "--output", "--also nfd"
};

// --output's target and each --also FORMAT=FILE; the error names the --also that is wrong.
util::Expected<std::vector<Target>> targets_of(const ExportOptions& options) {
    std::vector<Target> targets = {{options.format, options.output, "--output"}};
    for (const auto& also : options.also) {
        const auto eq = also.find('=');
        const std::string format = also.substr(0, eq);
        if (eq == std::string::npos || eq + 1 == also.size() ||
            std::find(kFormats.begin(), kFormats.end(), format) == kFormats.end()) {
            return util::unexpected(util::ErrorCode::invalid_input,
                                    fmt::format("--also {}: expected FORMAT=FILE, FORMAT one of "
                                                "prometheus, nfd, gres, dot, nccl-topo",
                                                also));
        }
        targets.push_back({format, also.substr(eq + 1), "--also " + format});
    }
    return targets;
}

// Why no topology was read: the tiers' reason, or (when none ran) the parts not found.
std::string no_topology_reason(const policy::doctor::DoctorInput& doctor) {
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

util::Expected<std::string> render(const std::string& format,
                                   const report::exports::ExportFacts& facts) {
    if (format == "prometheus") {
        return report::exports::export_prometheus(facts);
    }
    if (format == "nfd") {
        return report::exports::export_nfd(facts);
    }
    if (facts.doctor.discovery.described() == nullptr) {
        return util::unexpected(util::ErrorCode::unavailable,
                                fmt::format("export {}: no GPU topology to draw from ({})",
                                            format,
                                            no_topology_reason(facts.doctor)));
    }
    if (format == "nccl-topo") {
        return report::exports::export_nccl_topo(facts);
    }
    return format == "gres" ? report::exports::export_gres(facts)
                            : report::exports::export_dot(facts);
}

// One target's text. A textfile being replaced keeps the last success it recorded, and the
// NVLink counters of links this run could not read (docs/export.md, prometheus).
util::Expected<std::string> render_target(const Invocation& inv,
                                          const Target& target,
                                          report::exports::ExportFacts facts) {
    if (target.format == "prometheus" && !target.path.empty()) {
        if (const auto previous = util::read_file(target.path)) {
            facts.run.previous_success_unix = report::exports::last_success_in(*previous);
            facts.run.previous_link_errors = report::exports::nvlink_link_errors_in(*previous);
        }
    }
    auto text = render(target.format, facts);
    if (text && target.format == "nccl-topo" && !inv.output.quiet) {
        for (const auto& why : report::exports::nccl_topo_left_out(facts)) {
            fmt::print(inv.output.err, "peergate: export nccl-topo: left to NCCL: {}\n", why);
        }
    }
    return text;
}

// --bus-id HOST=VM, each: the bus id nccl-topo writes for a device or port of the host.
util::Expected<std::map<model::PciAddress, model::PciAddress>> bus_renames_of(
    const std::vector<std::string>& specs) {
    std::map<model::PciAddress, model::PciAddress> renames;
    for (const auto& spec : specs) {
        const auto eq = spec.find('=');
        const auto host = model::PciAddress::parse(spec.substr(0, eq));
        const auto vm =
            eq == std::string::npos ? host : model::PciAddress::parse(spec.substr(eq + 1));
        if (eq == std::string::npos || !host || !vm) {
            return util::unexpected(util::ErrorCode::invalid_input,
                                    fmt::format("--bus-id {}: expected HOST=VM, two PCI bus ids "
                                                "(0000:1b:00.0=0000:05:00.0)",
                                                spec));
        }
        const bool taken = std::any_of(
            renames.begin(), renames.end(), [&](const auto& r) { return r.second == *vm; });
        if (taken || !renames.emplace(*host, *vm).second) {
            return util::unexpected(util::ErrorCode::invalid_input,
                                    fmt::format("--bus-id {}: a bus id given twice", spec));
        }
    }
    return renames;
}

// The host read once for every target; nccl-topo's PCI tree only when a target wants it.
util::Expected<report::exports::ExportFacts> facts_for(const Invocation& inv,
                                                       const ExportOptions& options,
                                                       const std::vector<Target>& targets) {
    const bool topo = std::any_of(
        targets.begin(), targets.end(), [](const Target& t) { return t.format == "nccl-topo"; });
    auto renames = bus_renames_of(options.bus_ids);
    if (!renames) {
        return util::unexpected(renames.error());
    }
    if (!renames->empty() && !topo) {
        return util::unexpected(util::ErrorCode::invalid_input,
                                "--bus-id applies to nccl-topo only");
    }
    auto request = options.request;
    request.pci_tree = topo;
    request.identity_helper = pipeline::self_executable();  // the gate's identity join
    auto facts = pipeline::gather_export_facts(inv, request);
    if (!facts) {
        return facts;
    }
    facts->bus_renames = std::move(*renames);
    if (const auto unused = report::exports::nccl_topo_unused_renames(*facts);
        topo && !unused.empty()) {
        return util::unexpected(util::ErrorCode::invalid_input,
                                fmt::format("--bus-id: {} is no GPU, NIC or port the file "
                                            "describes",
                                            unused.front().to_sysfs()));
    }
    return facts;
}

int run_export(const Invocation& inv, const ExportOptions& options) {
    const auto targets = targets_of(options);
    if (!targets) {
        print_error(inv.output, targets.error().message);
        return kExitError;
    }
    const auto facts = facts_for(inv, options, *targets);
    if (!facts) {
        print_error(inv.output, facts.error().message);
        return kExitError;
    }
    // All or nothing (docs/export.md): every target is rendered and every file's temporary
    // written before any file is replaced, so the formats a collector reads always agree.
    std::vector<util::FileContent> files;
    std::string to_stdout;
    for (const auto& target : *targets) {
        auto text = render_target(inv, target, *facts);
        if (!text) {
            print_error(inv.output, text.error().message);
            return kExitError;
        }
        if (target.path.empty()) {
            to_stdout += *text;
        } else {
            files.push_back({target.path, std::move(*text), target.option});
        }
    }
    if (auto written = util::write_files_atomically(files); !written) {
        print_error(inv.output, written.error().message);
        return kExitError;
    }
    fmt::print(inv.output.out, "{}", to_stdout);
    return kExitOk;
}

// What the export examines, as doctor does: the GPUs, a probe, bandwidth, the kernel log.
void add_examination_options(CLI::App* sub, pipeline::DoctorOptions& doctor) {
    sub->add_option("--gpus", doctor.gpus, "the GPUs examined: 0,1,3 or 'all' (default)");
    CLI::Option* probe =
        sub->add_flag("--probe",
                      doctor.probe,
                      "also move data over every ordered pair and compare it (integrity labels "
                      "and metrics)");
    add_soak_option(sub, doctor.soak_s, probe);
    sub->add_option("--bandwidth",
                    doctor.bandwidth,
                    "a 'peergate bench --json' result: bandwidth metrics and labels");
    sub->add_option("--kernel-log", doctor.kernel_log, "as for doctor");
}

// Settings only some formats read.
void add_format_options(CLI::App* sub, pipeline::ExportRequest& request) {
    sub->add_option("--node-name",
                    request.node_name,
                    "gres: the node's name (default: SLURMD_NODENAME, else the host name)");
    sub->add_option(
        "--gres-type", request.gres_type, "gres: Type= for every GPU (default: from its name)");
    sub->add_option("--expiry-hours",
                    request.expiry_hours,
                    "nfd: labels expire this many hours after the run, unless rewritten (at least "
                    "twice the run interval; default: never)")
        ->check(whole_number(0, 24 * 365 * 10));
    sub->add_flag("--nfd-timestamp",
                  request.nfd_timestamp,
                  "nfd: also write the timestamp label (Unix seconds); it changes at every run, "
                  "so NFD updates the Node at every run (the expiry already says how fresh the "
                  "labels are)");
    sub->add_flag("--dot-all-paths",
                  request.dot_all_paths,
                  "dot: also draw the PCIe path of GPUs that NVLink joins (by default only pairs "
                  "no NVLink joins, and faulty ones, get a PCIe line)");
}

}  // namespace

Command add_export_command(CLI::App& app) {
    auto options = std::make_shared<ExportOptions>();
    CLI::App* sub = app.add_subcommand("export",
                                       "the verdicts as a Prometheus textfile, NFD labels, "
                                       "gres.conf, Graphviz or NCCL's topology");
    sub->add_option("format",
                    options->format,
                    "prometheus (node_exporter textfile), nfd (Node Feature Discovery labels), "
                    "gres (Slurm gres.conf lines), dot (Graphviz), nccl-topo (an NCCL_TOPO_FILE)")
        ->required()
        ->check(CLI::IsMember({"prometheus", "nfd", "gres", "dot", "nccl-topo"}));
    sub->add_option("--output",
                    options->output,
                    "write FILE atomically (a hidden temporary beside it, then rename) instead of "
                    "stdout");
    sub->add_option("--also",
                    options->also,
                    "FORMAT=FILE: also write FORMAT to FILE (atomically) from the same read of the "
                    "host (repeatable: one probe for every file)");
    sub->add_option("--bus-id",
                    options->bus_ids,
                    "nccl-topo: HOST=VM, write the VM's bus id for a device or port of the host "
                    "(repeatable; for a VM's NCCL_TOPO_FILE)");
    add_examination_options(sub, options->request.doctor);
    add_format_options(sub, options->request);
    sub->footer(
        "Exit status: 0 written (whatever the verdict), 2 usage error or nothing to export.\n"
        "Textfile collector: peergate export prometheus --output "
        "/var/lib/prometheus/node-exporter/peergate.prom\n"
        "NFD: peergate export nfd --expiry-hours 2 --output "
        "/etc/kubernetes/node-feature-discovery/features.d/peergate");
    return Command{sub, [options](const Invocation& inv) { return run_export(inv, *options); }};
}

}  // namespace peergate::cli
