// SPDX-License-Identifier: Apache-2.0
// run_process with real child processes: no shell of ours, explicit environment, a timeout
// that kills the whole process group, and output collected from both pipes at once.
#include "util/subprocess.hpp"

#include "util/strings.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

namespace peergate::util {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

EnvMap basic_env() {
    EnvMap env;
    env.set("PATH", "/usr/bin:/bin");
    return env;
}

// sh -c SCRIPT, run through run_process: the script is test input, not a shell of ours.
Command shell(const std::string& script, std::chrono::milliseconds timeout = 10s) {
    Command command;
    command.argv = {"/bin/sh", "-c", script};
    command.env = basic_env();
    command.timeout = timeout;
    return command;
}

ProcessResult run_ok(const Command& command) {
    auto result = run_process(command);
    EXPECT_TRUE(result.has_value()) << (result ? "" : result.error().message);
    return result ? *result : ProcessResult{};
}

// True when `pid` is gone or a zombie: it no longer runs.
bool stopped(pid_t pid) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string line;
    if (!std::getline(stat, line)) {
        return true;
    }
    const auto close = line.rfind(')');
    return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

bool stops_within(pid_t pid, std::chrono::milliseconds limit) {
    const auto deadline = Clock::now() + limit;
    while (Clock::now() < deadline) {
        if (stopped(pid)) {
            return true;
        }
        std::this_thread::sleep_for(20ms);
    }
    return stopped(pid);
}

TEST(Subprocess, NormalExitCollectsBothStreams) {
    const auto r = run_ok(shell("printf 'hello\\n'; printf 'warn' >&2; exit 0"));
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_EQ(r.term_signal, 0);
    EXPECT_FALSE(r.timed_out);
    EXPECT_TRUE(r.succeeded());
    EXPECT_EQ(r.out, "hello\n");
    EXPECT_EQ(r.err, "warn");
    EXPECT_EQ(describe_failure(r, 10s), "");
}

TEST(Subprocess, ArgumentsReachTheChildVerbatimWithoutAShell) {
    Command command;
    command.argv = {"/usr/bin/printf", "%s|", "a b", "$HOME", "*", "; rm -rf /"};
    command.env = basic_env();
    const auto r = run_ok(command);
    EXPECT_EQ(r.out, "a b|$HOME|*|; rm -rf /|");
}

TEST(Subprocess, NonZeroExitIsAResultNotAnError) {
    const auto r = run_ok(shell("echo 'Failed to initialize NVML' ; exit 9"));
    EXPECT_EQ(r.exit_code, 9);
    EXPECT_FALSE(r.succeeded());
    EXPECT_FALSE(r.timed_out);
    EXPECT_EQ(r.out, "Failed to initialize NVML\n");
    EXPECT_EQ(describe_failure(r, 10s), "exited with status 9");
}

TEST(Subprocess, DeathBySignalIsReported) {
    const auto r = run_ok(shell("kill -9 $$"));
    EXPECT_EQ(r.term_signal, SIGKILL);
    EXPECT_EQ(r.exit_code, -1);
    EXPECT_FALSE(r.succeeded());
    EXPECT_NE(describe_failure(r, 10s).find("killed by signal 9"), std::string::npos);
}

TEST(Subprocess, HangPastTheTimeoutIsKilledPromptly) {
    const auto timeout = 300ms;
    const auto start = Clock::now();
    const auto r = run_ok(shell("sleep 60", timeout));
    const auto elapsed = Clock::now() - start;
    EXPECT_TRUE(r.timed_out);
    EXPECT_FALSE(r.succeeded());
    EXPECT_LT(elapsed, timeout + 2s);
    EXPECT_GE(elapsed, timeout);
    EXPECT_EQ(describe_failure(r, timeout), "did not finish within 300 ms and was killed");
}

TEST(Subprocess, ChildThatClosesItsOutputAndHangsGetsTheTimeoutOnce) {
    // Reading ends at end of file; reaping must share the same deadline, not start a new one.
    const auto timeout = 1500ms;
    const auto start = Clock::now();
    const auto r = run_ok(shell("exec >&- 2>&-; sleep 60", timeout));
    const auto elapsed = Clock::now() - start;
    EXPECT_TRUE(r.timed_out);
    EXPECT_GE(elapsed, timeout);
    EXPECT_LT(elapsed, timeout + 1s) << "waited for the timeout twice";
}

TEST(Subprocess, ChildThatIgnoresSigtermIsKilledAfterTheGrace) {
    Command command = shell("trap '' TERM; echo ready; while :; do sleep 1; done", 300ms);
    command.kill_grace = 200ms;
    const auto start = Clock::now();
    const auto r = run_ok(command);
    EXPECT_TRUE(r.timed_out);
    EXPECT_EQ(r.out, "ready\n");
    EXPECT_LT(Clock::now() - start, 300ms + 200ms + 2s);
}

TEST(Subprocess, HangingGrandchildIsKilledWithTheGroup) {
    // The child exits at once; the grandchild keeps stdout open and sleeps. Without the
    // group kill the grandchild would outlive us holding the pipe.
    const auto timeout = 300ms;
    const auto start = Clock::now();
    const auto r = run_ok(shell("sleep 60 & echo $!", timeout));
    EXPECT_LT(Clock::now() - start, timeout + 2s);
    EXPECT_TRUE(r.timed_out);
    const auto pid = parse_int<pid_t>(trim(r.out));
    ASSERT_TRUE(pid.has_value()) << r.out;
    EXPECT_TRUE(stops_within(*pid, 2s)) << "grandchild " << *pid << " still runs";
}

TEST(Subprocess, ChildWaitingOnAHangingGrandchildIsKilledWithIt) {
    const auto r = run_ok(shell("sleep 60 & echo $!; wait", 300ms));
    EXPECT_TRUE(r.timed_out);
    const auto pid = parse_int<pid_t>(trim(r.out));
    ASSERT_TRUE(pid.has_value()) << r.out;
    EXPECT_TRUE(stops_within(*pid, 2s));
}

TEST(Subprocess, MissingBinaryIsANotFoundError) {
    Command command;
    command.argv = {"/nonexistent/nvidia-smi", "topo", "-m"};
    command.env = basic_env();
    const auto r = run_process(command);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ErrorCode::not_found);
    EXPECT_NE(r.error().message.find("/nonexistent/nvidia-smi"), std::string::npos);

    command.argv = {"peergate-no-such-program"};
    const auto by_name = run_process(command);
    ASSERT_FALSE(by_name.has_value());
    EXPECT_EQ(by_name.error().code, ErrorCode::not_found);
    EXPECT_NE(by_name.error().message.find("not found on PATH (/usr/bin:/bin)"), std::string::npos);
}

TEST(Subprocess, NonExecutableFileIsNotFound) {
    Command command;
    command.argv = {std::string(PEERGATE_TEST_FIXTURES) + "/README.md"};
    command.env = basic_env();
    const auto r = run_process(command);
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ErrorCode::not_found);
}

TEST(Subprocess, EmptyArgvIsInvalid) {
    const auto r = run_process(Command{});
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
}

TEST(Subprocess, EightMegabytesOnBothStreamsAtOnceDoNotDeadlock) {
    constexpr std::size_t kSize = 8U << 20U;
    const auto r =
        run_ok(shell("head -c 8388608 /dev/zero >&2 & head -c 8388608 /dev/zero; wait", 20s));
    EXPECT_TRUE(r.succeeded()) << describe_failure(r, 20s);
    EXPECT_EQ(r.out.size(), kSize);
    EXPECT_EQ(r.err.size(), kSize);
    EXPECT_FALSE(r.output_truncated);
}

TEST(Subprocess, OutputPastTheCapIsDrainedAndDropped) {
    Command command = shell("head -c 1000000 /dev/zero; echo done >&2");
    command.max_output_bytes = 1024;
    const auto r = run_ok(command);
    EXPECT_TRUE(r.succeeded()) << "the child must not block or get SIGPIPE: "
                               << describe_failure(r, 10s);
    EXPECT_EQ(r.out.size(), 1024U);
    EXPECT_EQ(r.err, "done\n");
    EXPECT_TRUE(r.output_truncated);
}

TEST(Subprocess, ChildSeesOnlyTheExplicitEnvironment) {
    Command command;
    command.argv = {"/usr/bin/env"};
    command.env.set("PEERGATE_ONLY", "this");
    command.env.set("A", "1");
    const auto r = run_ok(command);
    EXPECT_EQ(r.out, "A=1\nPEERGATE_ONLY=this\n");
}

TEST(Subprocess, StdinIsEmpty) {
    Command command;
    command.argv = {"/bin/cat"};
    const auto r = run_ok(command);
    EXPECT_TRUE(r.succeeded());
    EXPECT_EQ(r.out, "");
}

TEST(FindProgram, ResolvesNamesOnThePathListInOrder) {
    EXPECT_EQ(find_program("sh", "/nonexistent:/bin:/usr/bin").value_or(""), "/bin/sh");
    EXPECT_EQ(find_program("sh", "/usr/bin:/bin").value_or(""), "/usr/bin/sh");
}

TEST(FindProgram, PathsWithASlashAreTakenAsTheyAre) {
    EXPECT_EQ(find_program("/bin/sh", "").value_or(""), "/bin/sh");
    const auto missing = find_program("/nonexistent/nvidia-smi", "/bin");
    ASSERT_FALSE(missing.has_value());
    EXPECT_EQ(missing.error().code, ErrorCode::not_found);
    EXPECT_NE(missing.error().message.find("no such executable file"), std::string::npos);
}

TEST(FindProgram, DirectoriesAndPlainFilesAreNotPrograms) {
    EXPECT_FALSE(find_program("/bin", "").has_value());
    EXPECT_FALSE(find_program("README.md", PEERGATE_TEST_FIXTURES).has_value());
}

TEST(FindProgram, EmptyNameIsInvalid) {
    const auto r = find_program("", "/bin");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code, ErrorCode::invalid_input);
}

}  // namespace
}  // namespace peergate::util
