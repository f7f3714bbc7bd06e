// SPDX-License-Identifier: Apache-2.0
#include "sources/host/kernel_log_source.hpp"

#include "sources/host/host_root.hpp"
#include "util/atomic_file.hpp"
#include "util/bounded_read.hpp"
#include "util/stream_tail.hpp"
#include "util/subprocess.hpp"

#include <fmt/format.h>

#include <iostream>

namespace peergate::sources::host {

namespace {

// The simulated host root carries the machine's kernel log here (docs/machine-file.md).
constexpr const char* kSimulatedLog = "/var/log/peergate-sim-dmesg.txt";

// 256 MiB is weeks of kern.log: a larger file is named too large, never read whole, and of a
// longer stdin only the last 256 MiB are kept (the newest events), the rest counted.
constexpr std::size_t kLargestKernelLog = std::size_t{256} << 20U;

KernelLogText from_stdin() {
    auto tail = util::read_stream_tail(std::cin, kLargestKernelLog);
    std::string source = "stdin";
    if (tail.dropped_bytes > 0) {
        source += fmt::format(" (its last {} MiB; the {} bytes before them were read and dropped)",
                              kLargestKernelLog >> 20U,
                              tail.dropped_bytes);
    }
    return {std::move(tail.text), std::move(source), tail.dropped_bytes};
}

KernelLogText from_dmesg(const util::EnvMap& env) {
    util::Command command;
    command.argv = {"dmesg"};
    command.env = env;
    command.timeout = std::chrono::seconds(5);
    auto result = util::run_process(command);
    if (!result) {
        return {"", "not read (" + result.error().message + "); pass --kernel-log FILE"};
    }
    if (!result->succeeded()) {
        return {"",
                "not read (dmesg " + util::describe_failure(*result, command.timeout) +
                    ", often because dmesg needs root); pass --kernel-log FILE"};
    }
    return {std::move(result->out), "dmesg"};
}

}  // namespace

KernelLogText read_kernel_log(const util::Seams& seams,
                              const util::EnvMap& env,
                              const std::string& option) {
    if (option == "-") {
        return from_stdin();
    }
    if (!option.empty()) {
        // A kernel log file: a FIFO is refused rather than waited on.
        auto text = util::read_regular_file(option, kLargestKernelLog);
        return text ? KernelLogText{std::move(*text), option}
                    : KernelLogText{"", "not read: " + text.error().message};
    }
    const HostRoot root(seams.host_root);
    if (!seams.simulated_machine.empty() || root.root() != "/") {
        for (const char* path : {kSimulatedLog, "/var/log/kern.log"}) {
            if (auto text = root.read_text(path)) {
                return {std::move(*text), root.resolve(path)};
            }
        }
        return {"", "not read: no kernel log under the host root; pass --kernel-log FILE"};
    }
    return from_dmesg(env);
}

}  // namespace peergate::sources::host
