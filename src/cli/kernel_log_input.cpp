// SPDX-License-Identifier: Apache-2.0
#include "cli/kernel_log_input.hpp"

#include "sources/host/host_root.hpp"
#include "util/atomic_file.hpp"
#include "util/subprocess.hpp"

#include <iostream>
#include <iterator>

namespace peergate::cli {

namespace {

// The simulated host root carries the machine's kernel log here (docs/machine-file.md).
constexpr const char* kSimulatedLog = "/var/log/peergate-sim-dmesg.txt";

KernelLogText from_dmesg(const Invocation& inv) {
    util::Command command;
    command.argv = {"dmesg"};
    command.env = inv.env;
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

KernelLogText read_kernel_log(const Invocation& inv, const std::string& option) {
    if (option == "-") {
        return {std::string(std::istreambuf_iterator<char>(std::cin), {}), "stdin"};
    }
    if (!option.empty()) {
        auto text = util::read_file(option);
        return text ? KernelLogText{std::move(*text), option}
                    : KernelLogText{"", "not read: " + text.error().message};
    }
    const sources::host::HostRoot root(inv.seams.host_root);
    if (!inv.seams.simulated_machine.empty() || root.root() != "/") {
        for (const char* path : {kSimulatedLog, "/var/log/kern.log"}) {
            if (auto text = root.read_text(path)) {
                return {std::move(*text), root.resolve(path)};
            }
        }
        return {"", "not read: no kernel log under the host root; pass --kernel-log FILE"};
    }
    return from_dmesg(inv);
}

}  // namespace peergate::cli
