// SPDX-License-Identifier: Apache-2.0
// A child that shares this process's terminal (stdin, stdout, stderr and process group) and
// is waited for while this process does other work: `peergate watch -- CMD`. Never a shell.
#pragma once

#include "util/env_map.hpp"
#include "util/expected.hpp"

#include <sys/types.h>

#include <string>
#include <vector>

namespace peergate::util {

class ChildProcess {
public:
    // Starts `argv` (argv[0] found as execvp would, in env's PATH or `default_path`) with
    // exactly `env`. Before it starts, SIGINT, SIGTERM, SIGHUP and SIGQUIT are caught: one
    // another process sends this one (kill) is passed on to the child; one the terminal sends
    // reaches the child by itself (same process group) and is not sent twice. The error
    // names the program and why it cannot run.
    static Expected<ChildProcess> start(const std::vector<std::string>& argv,
                                        const EnvMap& env,
                                        const std::string& default_path);

    ChildProcess(ChildProcess&& other) noexcept;
    ChildProcess& operator=(ChildProcess&&) = delete;
    ChildProcess(const ChildProcess&) = delete;
    ChildProcess& operator=(const ChildProcess&) = delete;
    ~ChildProcess();  // a child not waited for is waited for here; the handlers are restored

    // Blocks until the child ends; its exit status, or 128 + the signal that ended it (as a
    // shell reports it). Signals are passed on meanwhile.
    int wait();

    pid_t pid() const { return pid_; }

private:
    explicit ChildProcess(pid_t pid) : pid_(pid) {}

    pid_t pid_ = -1;
    bool waited_ = false;
};

}  // namespace peergate::util
