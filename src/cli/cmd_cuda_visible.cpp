// SPDX-License-Identifier: Apache-2.0
// peergate cuda-visible (internal, not listed by --help): the PCI bus id (NVML form) of
// every CUDA device this process sees, one per line in CUDA ordinal order. The gate runs
// it as a short-lived helper under the child's environment (docs/gate-rules.md §4 "beyond"):
// the driver reads CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER once at cuInit, so only a
// fresh process started with the child's values can say what the child will see.
#include "cli/commands.hpp"
#include "pipeline/identity_join.hpp"

#include <fmt/format.h>

namespace peergate::cli {

namespace {

int run_cuda_visible(const Invocation& inv) {
    const auto answer = pipeline::list_cuda_visible(inv.seams);
    fmt::print(inv.output.out, "{}", answer.out);
    if (answer.error) {
        print_error(inv.output, "cuda-visible: " + answer.error->message);
        return kExitError;
    }
    return kExitOk;
}

}  // namespace

Command add_cuda_visible_command(CLI::App& app) {
    CLI::App* sub = app.add_subcommand(
        "cuda-visible",
        "internal: PCI bus ids of the CUDA devices this process sees, in CUDA order");
    sub->group("");  // a helper the gate runs, not a user command
    return Command{sub, [](const Invocation& inv) { return run_cuda_visible(inv); }};
}

}  // namespace peergate::cli
