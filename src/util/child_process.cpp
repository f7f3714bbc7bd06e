// SPDX-License-Identifier: Apache-2.0
#include "util/child_process.hpp"

#include "util/subprocess.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>

namespace peergate::util {

namespace {

constexpr std::array<int, 4> kPassedOn{SIGINT, SIGTERM, SIGHUP, SIGQUIT};

// The child the handler passes signals to; one watched child per process at a time.
std::atomic<pid_t> g_child{-1};  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)
std::array<struct sigaction, kPassedOn.size()> g_saved{};  // NOLINT(*-non-const-global-*)

extern "C" void pass_on(int signal, siginfo_t* info, void* /*context*/) {
    // SI_USER / SI_QUEUE: kill(2) or sigqueue(3) from a process. A signal the terminal raised
    // (SI_KERNEL) went to the whole foreground process group, the child included.
    const pid_t child = g_child.load();
    if (child > 0 && info != nullptr && (info->si_code == SI_USER || info->si_code == SI_QUEUE)) {
        ::kill(child, signal);
    }
}

void catch_signals() {
    struct sigaction action {};

    action.sa_sigaction = pass_on;
    action.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&action.sa_mask);
    for (std::size_t k = 0; k < kPassedOn.size(); ++k) {
        ::sigaction(kPassedOn[k], &action, &g_saved[k]);
    }
}

void restore_signals() {
    for (std::size_t k = 0; k < kPassedOn.size(); ++k) {
        ::sigaction(kPassedOn[k], &g_saved[k], nullptr);
    }
}

int shell_status(int status) {
    if (WIFEXITED(status)) {
        return WEXITSTATUS(status);
    }
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

}  // namespace

Expected<ChildProcess> ChildProcess::start(const std::vector<std::string>& argv,
                                           const EnvMap& env,
                                           const std::string& default_path) {
    if (argv.empty()) {
        return unexpected(ErrorCode::invalid_input, "no command to run");
    }
    auto program = find_program(argv.front(), env.get("PATH").value_or(default_path));
    if (!program) {
        return unexpected(program.error().code,
                          "cannot run '" + argv.front() + "': " + program.error().message);
    }
    CStringArray args(argv);
    CStringArray envp(env.to_strings());
    catch_signals();  // before the child exists: a signal meanwhile is not lost (exec resets it)
    pid_t pid = -1;
    const int rc =
        ::posix_spawn(&pid, program->c_str(), nullptr, nullptr, args.data(), envp.data());
    if (rc != 0) {
        restore_signals();
        return unexpected(ErrorCode::io, "cannot run '" + *program + "': " + std::strerror(rc));
    }
    g_child.store(pid);
    return ChildProcess(pid);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(other.pid_), waited_(other.waited_) {
    other.pid_ = -1;
    other.waited_ = true;
}

ChildProcess::~ChildProcess() {
    if (pid_ > 0 && !waited_) {
        wait();
    }
}

int ChildProcess::wait() {
    int status = 0;
    pid_t done = -1;
    do {
        done = ::waitpid(pid_, &status, 0);
    } while (done < 0 && errno == EINTR);
    waited_ = true;
    g_child.store(-1);
    restore_signals();
    return done == pid_ ? shell_status(status) : 1;
}

}  // namespace peergate::util
