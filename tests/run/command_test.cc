#include "run/command.h"

#include <cerrno>
#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>

#include "fakes/temp_dir.h"
#include "os/unique_fd.h"
#include "run/local/spawn.h"

namespace trainyard::run {
namespace {

using ::trainyard::testing::TempDir;
using namespace std::chrono_literals;

constexpr auto kGenerous = 60s;  // never reached by a command that ends by itself

struct CommandCase {
  std::string name;
  std::vector<std::string> argv;
  std::string input;
  ExitStatus status;
  std::string out;
  std::string err;
};

class RunCommandTest : public ::testing::TestWithParam<CommandCase> {};

TEST_P(RunCommandTest, CapturesOutputAndStatus) {
  const CommandCase& tc = GetParam();
  Result<CommandResult> result = RunCommand(tc.argv, tc.input, kGenerous);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_EQ(result->status.signaled, tc.status.signaled);
  EXPECT_EQ(result->status.code, tc.status.code);
  EXPECT_EQ(result->status.signal, tc.status.signal);
  EXPECT_EQ(result->out, tc.out);
  EXPECT_EQ(result->err, tc.err);
}

INSTANTIATE_TEST_SUITE_P(
    Commands, RunCommandTest,
    ::testing::Values(
        CommandCase{.name = "Stdout",
                    .argv = {"/bin/sh", "-c", "printf 'hello\\nworld'"},
                    .out = "hello\nworld"},
        CommandCase{.name = "StderrApart",
                    .argv = {"/bin/sh", "-c", "printf out; printf oops >&2"},
                    .out = "out",
                    .err = "oops"},
        CommandCase{.name = "StdinDelivered",
                    .argv = {"cat"},
                    .input = "line 1\nline 2\n",
                    .out = "line 1\nline 2\n"},
        CommandCase{.name = "StdinClosedAfterInput",
                    .argv = {"/bin/sh", "-c", "read a; read b; echo \"$a-$b\"; cat; echo eof"},
                    .input = "x\ny\nz\n",
                    .out = "x-y\nz\neof\n"},
        CommandCase{.name = "NoInputIsEof", .argv = {"cat"}, .out = ""},
        CommandCase{.name = "ExitCode",
                    .argv = {"/bin/sh", "-c", "echo failing >&2; exit 3"},
                    .status = {.code = 3},
                    .err = "failing\n"},
        CommandCase{.name = "KilledBySignal",
                    .argv = {"/bin/sh", "-c", "kill -TERM $$"},
                    .status = {.signaled = true, .signal = SIGTERM}},
        // The command exits without reading a large input: EPIPE here, not a dead test process.
        CommandCase{.name = "UnreadInput",
                    .argv = {"/bin/sh", "-c", "echo ignored"},
                    .input = std::string(std::size_t{8} << 20, 'x'),
                    .out = "ignored\n"}),
    [](const auto& tc) { return tc.param.name; });

TEST(RunCommand, ProgramNotFoundIsFailedPrecondition) {
  Result<CommandResult> result = RunCommand({"trainyard-no-such-program"}, "", kGenerous);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Code::kFailedPrecondition);
  EXPECT_EQ(result.status().message(), "Cannot run trainyard-no-such-program: not found on PATH");
}

TEST(RunCommand, LargeOutputOnBothStreamsWithLargeInput) {
  // More than a pipe holds on each stream while the input is still being written.
  const std::string input(std::size_t{3} << 20, 'i');
  Result<CommandResult> result =
      RunCommand({"/bin/sh", "-c", "head -c 2000000 /dev/zero | tr '\\0' e >&2 & cat; wait"}, input,
                 kGenerous);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(result->status.Succeeded()) << result->status.Describe();
  EXPECT_EQ(result->out, input);
  EXPECT_EQ(result->err, std::string(2000000, 'e'));
}

TEST(RunCommand, OutputBeyondTheLimitIsDroppedAndTheCommandStillEnds) {
  Result<CommandResult> result =
      RunCommand({"/bin/sh", "-c", "printf abc; head -c 5000000 /dev/zero"}, "", kGenerous,
                 /*max_output=*/1000);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(result->status.Succeeded()) << result->status.Describe();
  ASSERT_EQ(result->out.size(), 1000U);
  EXPECT_EQ(result->out.substr(0, 4), std::string("abc\0", 4));
}

// Whether `pid` has ended (or is gone): its pidfd is readable once it has exited, reaped or not.
bool EndsWithin(int pid, std::chrono::milliseconds limit) {
  const os::UniqueFd pidfd(local::OpenPidFd(pid));
  if (!pidfd.valid()) {
    return errno == ESRCH;
  }
  pollfd fd{.fd = pidfd.get(), .events = POLLIN};
  return poll(&fd, 1, static_cast<int>(limit.count())) == 1;
}

int ReadPid(const std::string& path) {
  std::ifstream in(path);
  int pid = 0;
  in >> pid;
  return pid;
}

TEST(RunCommand, TimeoutKillsTheWholeProcessGroup) {
  TempDir dir;
  const std::string pid_file = dir.File("sleeper.pid");
  Result<CommandResult> result =
      RunCommand({"/bin/sh", "-c", "sleep 300 & echo $! > " + pid_file + "; wait"}, "", 300ms);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), Code::kDeadlineExceeded);
  EXPECT_EQ(result.status().message(), "/bin/sh did not finish within 0.3 s");
  const int sleeper = ReadPid(pid_file);
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(EndsWithin(sleeper, 10s)) << "the forked sleeper " << sleeper << " survived";
  kill(sleeper, SIGKILL);  // in case it did
}

TEST(RunCommand, ReturnsWhenTheCommandExitsThoughAChildKeepsItsOutputOpen) {
  Result<CommandResult> result =
      RunCommand({"/bin/sh", "-c", "sleep 300 & echo $!; echo done >&2"}, "", kGenerous);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(result->status.Succeeded());
  EXPECT_EQ(result->err, "done\n");
  const int sleeper = std::stoi(result->out);
  ASSERT_GT(sleeper, 0);
  kill(sleeper, SIGKILL);
}

TEST(RunCommand, ConcurrentCallsKeepTheirOwnStreams) {
  constexpr int kThreads = 8;
  std::vector<std::string> outs(kThreads);
  std::vector<std::string> errs(kThreads);
  {
    std::vector<std::jthread> threads;
    threads.reserve(kThreads);
    for (int i = 0; i < kThreads; ++i) {
      threads.emplace_back([i, &outs, &errs] {
        const std::string input(static_cast<std::size_t>(100000 + i), static_cast<char>('a' + i));
        Result<CommandResult> result = RunCommand(
            {"/bin/sh", "-c", "cat; echo " + std::to_string(i) + " >&2"}, input, kGenerous);
        if (result.ok()) {
          outs[static_cast<std::size_t>(i)] = result->out;
          errs[static_cast<std::size_t>(i)] = result->err;
        }
      });
    }
  }
  for (int i = 0; i < kThreads; ++i) {
    const auto index = static_cast<std::size_t>(i);
    EXPECT_EQ(outs[index], std::string(100000 + index, static_cast<char>('a' + i))) << i;
    EXPECT_EQ(errs[index], std::to_string(i) + "\n");
  }
}

}  // namespace
}  // namespace trainyard::run
