// SPDX-License-Identifier: Apache-2.0
#include "util/subprocess.hpp"

#include "util/strings.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace peergate::util {

namespace {

using Clock = std::chrono::steady_clock;

bool is_executable_file(const std::string& path) {
    struct stat st {};

    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

// Closes a file descriptor once; -1 is "already closed".
void close_fd(int& fd) {
    if (fd >= 0) {
        ::close(fd);
        fd = -1;
    }
}

struct Pipes {
    std::array<int, 2> out{-1, -1};
    std::array<int, 2> err{-1, -1};

    ~Pipes() {
        for (int* fd : {&out[0], &out[1], &err[0], &err[1]}) {
            close_fd(*fd);
        }
    }
};

Expected<pid_t> spawn(const std::string& program, const Command& command, Pipes& pipes) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attr;
    posix_spawn_file_actions_init(&actions);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&actions, pipes.out[1], 1);
    posix_spawn_file_actions_adddup2(&actions, pipes.err[1], 2);
    // Own process group, so a timeout kills what the child started too.
    sigset_t default_signals;
    sigemptyset(&default_signals);
    sigaddset(&default_signals, SIGPIPE);
    sigaddset(&default_signals, SIGTERM);
    sigaddset(&default_signals, SIGINT);
    sigset_t no_signals;
    sigemptyset(&no_signals);
    posix_spawnattr_setsigdefault(&attr, &default_signals);
    posix_spawnattr_setsigmask(&attr, &no_signals);
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(
        &attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

    CStringArray argv(command.argv);
    CStringArray envp(command.env.to_strings());
    pid_t pid = -1;
    const int rc = posix_spawn(&pid, program.c_str(), &actions, &attr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) {
        return unexpected(ErrorCode::not_found,
                          fmt::format("cannot start {}: {}", program, std::strerror(rc)));
    }
    return pid;
}

// Appends what is readable on `fd`; closes it at end of file.
void drain(int& fd, std::string& sink, std::size_t cap, bool& truncated) {
    std::array<char, 65536> buffer{};
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0) {
        const auto got = static_cast<std::size_t>(n);
        const std::size_t room = sink.size() < cap ? cap - sink.size() : 0;
        sink.append(buffer.data(), std::min(room, got));
        truncated = truncated || got > room;
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        close_fd(fd);
    }
}

// Reads both pipes until end of file or the deadline; returns false on the deadline.
bool collect(Pipes& pipes,
             const Command& command,
             Clock::time_point deadline,
             ProcessResult& result) {
    while (pipes.out[0] >= 0 || pipes.err[0] >= 0) {
        // Round up: truncating would give up to 1 ms before the deadline.
        const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now());
        if (left.count() <= 0) {
            return false;
        }
        std::array<pollfd, 2> fds{pollfd{pipes.out[0], POLLIN, 0}, pollfd{pipes.err[0], POLLIN, 0}};
        const int ready = ::poll(
            fds.data(), fds.size(), static_cast<int>(std::min<long long>(left.count(), 1000)));
        if (ready < 0 && errno != EINTR) {
            return false;
        }
        if (fds[0].revents != 0) {
            drain(pipes.out[0], result.out, command.max_output_bytes, result.output_truncated);
        }
        if (fds[1].revents != 0) {
            drain(pipes.err[0], result.err, command.max_output_bytes, result.output_truncated);
        }
    }
    return true;
}

// Waits for `pid` until `deadline`; true when it was reaped.
bool wait_until(pid_t pid, Clock::time_point deadline, int& status) {
    while (true) {
        const pid_t got = ::waitpid(pid, &status, WNOHANG);
        if (got == pid || (got < 0 && errno != EINTR)) {
            return true;
        }
        if (Clock::now() >= deadline) {
            return false;
        }
        ::usleep(2000);
    }
}

void record_status(int status, ProcessResult& result) {
    if (WIFEXITED(status)) {
        result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        result.term_signal = WTERMSIG(status);
    }
}

}  // namespace

Expected<std::string> find_program(const std::string& name, const std::string& path_list) {
    if (name.empty()) {
        return unexpected(ErrorCode::invalid_input, "empty program name");
    }
    if (name.find('/') != std::string::npos) {
        if (is_executable_file(name)) {
            return name;
        }
        return unexpected(ErrorCode::not_found, name + ": no such executable file");
    }
    for (std::string_view dir : split(path_list, ':')) {
        const std::string candidate =
            (dir.empty() ? std::string(".") : std::string(dir)) + "/" + name;
        if (is_executable_file(candidate)) {
            return candidate;
        }
    }
    return unexpected(ErrorCode::not_found, name + ": not found on PATH (" + path_list + ")");
}

Expected<ProcessResult> run_process(const Command& command) {
    if (command.argv.empty()) {
        return unexpected(ErrorCode::invalid_input, "no program to run");
    }
    auto program = find_program(command.argv[0],
                                command.env.get("PATH").value_or("/usr/local/bin:/usr/bin:/bin"));
    if (!program) {
        return unexpected(program.error());
    }
    Pipes pipes;
    if (::pipe2(pipes.out.data(), O_CLOEXEC) != 0 || ::pipe2(pipes.err.data(), O_CLOEXEC) != 0) {
        return unexpected(ErrorCode::io,
                          std::string("cannot create pipes: ") + std::strerror(errno));
    }
    auto pid = spawn(*program, command, pipes);
    if (!pid) {
        return unexpected(pid.error());
    }
    close_fd(pipes.out[1]);
    close_fd(pipes.err[1]);

    // One deadline for reading and reaping: a child that closes its output and then
    // hangs must not get the timeout twice.
    const auto deadline = Clock::now() + command.timeout;
    ProcessResult result;
    result.timed_out = !collect(pipes, command, deadline, result);
    int status = 0;
    const auto reap_deadline = result.timed_out ? Clock::now() : deadline;
    if (result.timed_out || !wait_until(*pid, reap_deadline, status)) {
        // Past the deadline: ask the whole group to stop, then make it.
        result.timed_out = true;
        ::kill(-*pid, SIGTERM);
        if (!wait_until(*pid, Clock::now() + command.kill_grace, status)) {
            ::kill(-*pid, SIGKILL);
            wait_until(*pid, Clock::now() + std::chrono::seconds(5), status);
        }
        ::kill(-*pid, SIGKILL);  // stragglers in the group that outlived the leader
    }
    record_status(status, result);
    return result;
}

std::string describe_failure(const ProcessResult& result, std::chrono::milliseconds timeout) {
    if (result.timed_out) {
        return fmt::format("did not finish within {} ms and was killed", timeout.count());
    }
    if (result.term_signal != 0) {
        return fmt::format(
            "was killed by signal {} ({})", result.term_signal, strsignal(result.term_signal));
    }
    if (result.exit_code != 0) {
        return fmt::format("exited with status {}", result.exit_code);
    }
    return "";
}

}  // namespace peergate::util
