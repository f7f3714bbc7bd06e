// SPDX-License-Identifier: Apache-2.0
// peergate nccl-log: what NCCL really did with the GPUs, read from NCCL_DEBUG=INFO logs.
#include "cli/commands.hpp"
#include "pipeline/nccl_log.hpp"
#include "policy/nccl/analysis.hpp"
#include "report/nccl/log_json.hpp"
#include "report/nccl/log_text.hpp"

#include <fmt/format.h>

#include <limits>
#include <memory>
#include <string_view>

namespace peergate::cli {

namespace {

struct NcclLogOptions {
    std::vector<std::string> files;
    std::string topology;
    unsigned threads = 0;
};

constexpr std::size_t kDefaultPairRows = 64;

int run_nccl_log(const Invocation& inv, const NcclLogOptions& options) {
    const auto read = pipeline::read_nccl_logs(options.files, options.topology, options.threads);
    if (!read) {
        print_error(inv.output, read.error().message);
        return kExitError;
    }
    const auto& log = read->log;
    const auto& topology = read->topology;
    const auto analysis = policy::nccl::analyze_nccl_log(log, topology ? &*topology : nullptr);
    const report::nccl::NcclLogReport report{options.files, options.topology, &log, &analysis};
    if (inv.output.json) {
        report::nccl::write_nccl_log_json(
            report, [&inv](std::string_view piece) { fmt::print(inv.output.out, "{}", piece); });
        fmt::print(inv.output.out, "\n");
    } else {
        const std::size_t rows =
            inv.output.verbose ? std::numeric_limits<std::size_t>::max() : kDefaultPairRows;
        fmt::print(
            inv.output.out, "{}", report::nccl::nccl_log_to_text(report, inv.output.color, rows));
    }
    return analysis.has_error() ? kExitFindings : kExitOk;
}

}  // namespace

Command add_nccl_log_command(CLI::App& app) {
    auto options = std::make_shared<NcclLogOptions>();
    CLI::App* sub =
        app.add_subcommand("nccl-log",
                           "what NCCL really did: transport per channel and pair, settings, "
                           "mismatches with the topology");
    sub->add_option(
           "files", options->files, "NCCL_DEBUG=INFO logs (several are merged; - reads stdin)")
        ->required();
    sub->add_option(
        "--topology",
        options->topology,
        "the machine's topology: peergate topo --json output or saved `nvidia-smi topo -m` text "
        "(applied to every host in the logs)");
    sub->add_option(
        "--threads",
        options->threads,
        "threads that parse a large log file (default 0: one per CPU, at most 8; 1: one pass); "
        "the result is the same");
    sub->footer(
        "Exit status: 0 no error findings, 1 an error finding (e.g. NVLink present but unused, a "
        "rank\n"
        "that never finished init), 2 an input file or --topology could not be read.\n"
        "Example: NCCL_DEBUG=INFO torchrun ... 2> nccl.log; peergate nccl-log nccl.log --topology "
        "topo.txt");
    return Command{sub, [options](const Invocation& inv) { return run_nccl_log(inv, *options); }};
}

}  // namespace peergate::cli
