// SPDX-License-Identifier: Apache-2.0
// peergate cuda-visible (internal, not listed by --help): the PCI bus id (NVML form) of
// every CUDA device this process sees, one per line in CUDA ordinal order. The gate runs
// it as a short-lived helper under the child's environment (GATE-SPEC.md §4 "beyond"):
// the driver reads CUDA_VISIBLE_DEVICES and CUDA_DEVICE_ORDER once at cuInit, so only a
// fresh process started with the child's values can say what the child will see.
#include "cli/commands.hpp"
#include "sources/cuda/cuda_api.hpp"
#include "sources/cuda/cuda_devices.hpp"

#include <fmt/format.h>

namespace peergate::cli {

namespace {

int run_cuda_visible(const Invocation& inv) {
    auto driver = sources::cuda::open_cuda_driver(inv.seams.cuda_library);
    if (!driver) {
        print_error(inv.output, "cuda-visible: " + driver.error().message);
        return kExitError;
    }
    auto devices = sources::cuda::enumerate_devices((*driver)->api);
    if (!devices) {
        print_error(inv.output, "cuda-visible: " + devices.error().message);
        return kExitError;
    }
    std::string lines;
    for (const auto& device : *devices) {
        if (!device.pci) {
            print_error(inv.output,
                        fmt::format("cuda-visible: CUDA device {} reported a PCI bus id "
                                    "that does not parse",
                                    device.ordinal));
            return kExitError;
        }
        lines += device.pci->to_nvml() + "\n";
    }
    fmt::print(inv.output.out, "{}", lines);  // all or nothing: a half list would mislead
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
