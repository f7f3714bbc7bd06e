// SPDX-License-Identifier: Apache-2.0
// Runs a program with an argv vector and an explicit environment: never a shell, always a
// timeout, the child and its process group killed (SIGTERM, then SIGKILL) and reaped past it.
#pragma once

#include "util/env_map.hpp"
#include "util/expected.hpp"

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

namespace peergate::util {

struct Command {
    std::vector<std::string> argv;  // argv[0] is a path, or a name looked up in env's PATH
    EnvMap env;                     // the child's whole environment
    std::chrono::milliseconds timeout{10'000};
    std::chrono::milliseconds kill_grace{500};  // SIGTERM to SIGKILL
    std::size_t max_output_bytes = 64U << 20U;  // per stream; the rest is read and dropped
};

struct ProcessResult {
    int exit_code = -1;      // the exit status, or -1 when a signal ended the child
    int term_signal = 0;     // the signal that ended it, 0 for a normal exit
    bool timed_out = false;  // the child ran past the timeout and was killed
    bool output_truncated = false;
    std::string out;
    std::string err;

    bool succeeded() const { return !timed_out && term_signal == 0 && exit_code == 0; }
};

// Resolves a program name against `path_list` (a PATH value) the way execvp does.
// A name with a '/' is returned as it is when it is executable.
Expected<std::string> find_program(const std::string& name, const std::string& path_list);

// Starts `command`, collects its output, and waits for it within its timeout.
// Errors are only for a child that could not be started (missing or not executable
// binary, no pipes); a timeout or a non-zero exit is a ProcessResult.
Expected<ProcessResult> run_process(const Command& command);

// One line that says how a finished process failed ("exited with status 9",
// "killed by signal 9", "did not finish within 10 s"), or "" when it succeeded.
std::string describe_failure(const ProcessResult& result, std::chrono::milliseconds timeout);

}  // namespace peergate::util
