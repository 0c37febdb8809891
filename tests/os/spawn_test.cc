#include "os/spawn.h"

#include <cerrno>
#include <csignal>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "fakes/temp_dir.h"
#include "os/environment.h"

namespace trainyard::os {
namespace {

using ::trainyard::testing::TempDir;

// Everything `fd` gives until EOF.
std::string ReadAll(int fd) {
  std::string text;
  char buffer[4096];
  ssize_t n = 0;
  while ((n = read(fd, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
    text.append(buffer, static_cast<std::size_t>(std::max<ssize_t>(n, 0)));
  }
  return text;
}

struct SpawnCase {
  std::string name;
  SpawnOptions options;  // stdout is a pipe in every case; the test reads it
  std::string out;
  ExitStatus status;
};

class SpawnTest : public ::testing::TestWithParam<SpawnCase> {};

TEST_P(SpawnTest, RunsWithItsOptions) {
  SpawnOptions options = GetParam().options;
  options.out = Stdio::Pipe();
  if (options.env.empty()) {
    options.env = {{"PATH", "/usr/bin:/bin"}};
  }
  Result<Child> child = Spawn(options);
  ASSERT_TRUE(child.ok()) << child.status().message();
  EXPECT_EQ(ReadAll(child->out.get()), GetParam().out);
  const ExitStatus status = Wait(child->pid);
  EXPECT_EQ(status.signaled, GetParam().status.signaled);
  EXPECT_EQ(status.code, GetParam().status.code);
  EXPECT_EQ(status.signal, GetParam().status.signal);
}

INSTANTIATE_TEST_SUITE_P(
    Table, SpawnTest,
    ::testing::Values(
        SpawnCase{.name = "ExitStatus",
                  .options = {.argv = {"sh", "-c", "echo hi; exit 7"}},
                  .out = "hi\n",
                  .status = {.code = 7}},
        SpawnCase{.name = "SignalDeath",
                  .options = {.argv = {"sh", "-c", "kill -KILL $$"}},
                  .status = {.signaled = true, .signal = SIGKILL}},
        SpawnCase{.name = "OnlyItsEnvironment",
                  .options = {.argv = {"sh", "-c", "echo \"$A|${B-unset}\""},
                              .env = {{"PATH", "/bin"}, {"A", "a b"}}},
                  .out = "a b|unset\n"},
        SpawnCase{.name = "WorkingDirectory",
                  .options = {.argv = {"pwd"}, .working_dir = "/usr"},
                  .out = "/usr\n"},
        SpawnCase{
            .name = "StdinNull", .options = {.argv = {"cat"}, .in = Stdio::Null()}, .out = ""},
        SpawnCase{.name = "StderrSameAsOut",
                  .options = {.argv = {"sh", "-c", "echo a; echo b >&2; echo c"},
                              .err = Stdio::SameAsOut()},
                  .out = "a\nb\nc\n"},
        SpawnCase{.name = "StderrNull",
                  .options = {.argv = {"sh", "-c", "echo a; echo b >&2"}, .err = Stdio::Null()},
                  .out = "a\n"},
        SpawnCase{.name = "NewProcessGroupLedByTheChild",
                  .options = {.argv = {"sh", "-c",
                                       "[ \"$(cut -d' ' -f5 /proc/$$/stat)\" = $$ ] && echo led"},
                              .new_process_group = true},
                  .out = "led\n"},
        SpawnCase{
            .name = "SameGroupByDefault",
            .options = {.argv = {"sh", "-c",
                                 "[ \"$(cut -d' ' -f5 /proc/$$/stat)\" = $$ ] || echo joined"}},
            .out = "joined\n"},
        SpawnCase{.name = "BlockedSignals",
                  .options = {.argv = {"grep", "SigBlk", "/proc/self/status"},
                              .blocked_signals = {SIGUSR1}},
                  .out = "SigBlk:\t0000000000000200\n"},
        SpawnCase{.name = "NoDescriptorsAboveStderr",
                  .options = {.argv = {"sh", "-c", "ls /proc/self/fd | wc -l"}},
                  .out = "4\n"}),  // 0, 1, 2 and ls's own directory
    [](const auto& tc) { return tc.param.name; });

TEST(OsSpawn, ChildStdinFromADescriptorAndAPipe) {
  TempDir dir;
  const std::string file = dir.File("in.txt");
  ASSERT_EQ(system(("printf from-file > " + file).c_str()), 0);
  const int fd = open(file.c_str(), O_RDONLY | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  Result<Child> from_fd = Spawn({.argv = {"/bin/cat"}, .in = Stdio::Fd(fd), .out = Stdio::Pipe()});
  close(fd);
  ASSERT_TRUE(from_fd.ok()) << from_fd.status().message();
  EXPECT_EQ(ReadAll(from_fd->out.get()), "from-file");
  EXPECT_TRUE(Wait(from_fd->pid).Succeeded());

  Result<Child> piped = Spawn({.argv = {"/bin/cat"}, .in = Stdio::Pipe(), .out = Stdio::Pipe()});
  ASSERT_TRUE(piped.ok()) << piped.status().message();
  ASSERT_EQ(write(piped->in.get(), "typed", 5), 5);
  piped->in.reset();
  EXPECT_EQ(ReadAll(piped->out.get()), "typed");
  EXPECT_TRUE(Wait(piped->pid).Succeeded());
}

struct MissingCase {
  std::string name;
  std::string program;
  std::string message;
  int error;
};

class SpawnMissingTest : public ::testing::TestWithParam<MissingCase> {};

TEST_P(SpawnMissingTest, NamesTheProgramAndStartsNothing) {
  int error = 0;
  Result<Child> child = Spawn({.argv = {GetParam().program}, .env = {{"PATH", "/bin"}}}, &error);
  ASSERT_FALSE(child.ok());
  EXPECT_EQ(child.status(), Status::FailedPrecondition(GetParam().message));
  EXPECT_EQ(error, GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Table, SpawnMissingTest,
    ::testing::Values(MissingCase{"NotOnPath", "ty-no-such-program",
                                  "Cannot run ty-no-such-program: not found on PATH", ENOENT},
                      MissingCase{"NoSuchFile", "/nonexistent/python",
                                  "Cannot run /nonexistent/python: no such file", ENOENT},
                      MissingCase{"Directory", "/usr", "Cannot run /usr: is a directory", EACCES},
                      MissingCase{"NotExecutable", "/etc/passwd",
                                  "Cannot run /etc/passwd: not executable", EACCES}),
    [](const auto& tc) { return tc.param.name; });

TEST(ShellExitCode, CodeOr128PlusSignal) {
  EXPECT_EQ(ShellExitCode({.code = 3}), 3);
  EXPECT_EQ(ShellExitCode({.signaled = true, .signal = SIGKILL}), 137);
}

}  // namespace
}  // namespace trainyard::os
