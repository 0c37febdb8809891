// os::RunCommand's options; its capture, input and group kill are also run/command_test.cc's.
#include "os/command.h"

#include <cerrno>
#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>

#include "os/spawn.h"
#include "os/unique_fd.h"

namespace trainyard::os {
namespace {

using namespace std::chrono_literals;
using Stderr = CommandOptions::Stderr;

struct OptionCase {
  std::string name;
  std::vector<std::string> argv;
  CommandOptions options;
  std::string out;
  std::string err;
};

class RunCommandOptionsTest : public ::testing::TestWithParam<OptionCase> {};

TEST_P(RunCommandOptionsTest, Collects) {
  const OptionCase& tc = GetParam();
  Result<CommandResult> result = RunCommand(tc.argv, tc.options);
  ASSERT_TRUE(result.ok()) << result.status().message();
  EXPECT_TRUE(result->status.Succeeded()) << result->status.Describe();
  EXPECT_EQ(result->out, tc.out);
  EXPECT_EQ(result->err, tc.err);
}

INSTANTIATE_TEST_SUITE_P(
    Table, RunCommandOptionsTest,
    ::testing::Values(OptionCase{.name = "StderrCaptured",
                                 .argv = {"sh", "-c", "echo a; echo b >&2"},
                                 .out = "a\n",
                                 .err = "b\n"},
                      OptionCase{.name = "StderrMerged",
                                 .argv = {"sh", "-c", "echo a; echo b >&2; echo c"},
                                 .options = {.err = Stderr::kMerge},
                                 .out = "a\nb\nc\n"},
                      OptionCase{.name = "StderrDiscarded",
                                 .argv = {"sh", "-c", "echo a; echo b >&2"},
                                 .options = {.err = Stderr::kDiscard},
                                 .out = "a\n"},
                      OptionCase{.name = "EnvironmentOverThisProcess",
                                 .argv = {"sh", "-c", "echo \"$TY_OS_TEST\" ${PATH:+has-path}"},
                                 .options = {.env = {{"TY_OS_TEST", "set"}}},
                                 .out = "set has-path\n"},
                      OptionCase{.name = "WorkingDirectory",
                                 .argv = {"pwd"},
                                 .options = {.working_dir = "/usr"},
                                 .out = "/usr\n"},
                      OptionCase{.name = "NoInputIsDevNull",
                                 .argv = {"sh", "-c", "readlink /proc/self/fd/0"},
                                 .out = "/dev/null\n"},
                      OptionCase{
                          .name = "OutputKeepsAnIdleTimeoutAway",
                          .argv = {"sh", "-c",
                                   "echo 1; sleep 1; echo 2; sleep 1; echo 3; sleep 1; echo 4"},
                          .options = {.timeout = 2500ms, .idle_timeout = true},
                          .out = "1\n2\n3\n4\n"}),
    [](const auto& tc) { return tc.param.name; });

TEST(OsRunCommand, SilenceEndsAnIdleTimeout) {
  Result<CommandResult> result =
      RunCommand({"sh", "-c", "echo started; sleep 300"}, {.timeout = 200ms, .idle_timeout = true});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status(), Status::DeadlineExceeded("sh did not finish within 0.2 s of silence"));
}

// Whether `pid` has ended (or is gone) within `limit`: its pidfd is readable once it has exited.
bool Ends(int pid, std::chrono::milliseconds limit) {
  const UniqueFd pidfd(OpenPidFd(pid));
  if (!pidfd.valid()) {
    return errno == ESRCH;
  }
  pollfd fd{.fd = pidfd.get(), .events = POLLIN};
  return poll(&fd, 1, static_cast<int>(limit.count())) == 1;
}

TEST(OsRunCommand, TimeoutKillsTheWholeProcessGroup) {
  int sleeper = 0;
  Result<CommandResult> result = RunCommand(
      {"sh", "-c", "sleep 300 & echo $!; wait"},
      {.timeout = 300ms,
       .on_line = [&](std::string_view line) { sleeper = std::stoi(std::string(line)); }});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status(), Status::DeadlineExceeded("sh did not finish within 0.3 s"));
  ASSERT_GT(sleeper, 0);
  EXPECT_TRUE(Ends(sleeper, 10s)) << "the forked sleeper " << sleeper << " survived";
  kill(sleeper, SIGKILL);  // in case it did
}

TEST(OsRunCommand, TimeoutInThisProcessGroupKillsTheCommand) {
  Result<CommandResult> result =
      RunCommand({"sleep", "300"}, {.timeout = 100ms, .new_process_group = false});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status(), Status::DeadlineExceeded("sleep did not finish within 0.1 s"));
}

TEST(OsRunCommand, MissingProgramNamesItAndGivesTheErrno) {
  int error = 0;
  Result<CommandResult> result = RunCommand({"/nonexistent/python"}, {}, &error);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status(),
            Status::FailedPrecondition("Cannot run /nonexistent/python: no such file"));
  EXPECT_EQ(error, ENOENT);
}

TEST(OsRunCommand, EmptyArgvIsRefused) {
  EXPECT_EQ(RunCommand({}, {}).status().code(), Code::kInternal);
}

}  // namespace
}  // namespace trainyard::os
