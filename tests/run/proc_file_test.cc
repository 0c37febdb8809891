// Reading /proc for recovery (issue #31): a process that does not exist, or that has exited, is
// an answer, never an exception.
#include "run/local/proc_file.h"

#include <climits>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakes/temp_dir.h"
#include "run/local/process_launcher.h"

namespace trainyard::run::local {
namespace {

using ::trainyard::testing::TempDir;

TEST(SplitCommandLine, SplitsAtNulsWithOrWithoutTheLastOne) {
  const struct {
    std::string text;
    std::vector<std::string> words;
  } kCases[] = {
      {"", {}},
      {std::string("sh\0-c\0echo\0", 11), {"sh", "-c", "echo"}},
      {std::string("sh\0-c", 5), {"sh", "-c"}},
      {std::string("a\0\0b\0", 5), {"a", "", "b"}},
      {"kworker", {"kworker"}},
  };
  for (const auto& c : kCases) {
    EXPECT_EQ(SplitCommandLine(c.text), c.words) << c.text;
  }
}

TEST(ProcessCommandLine, ThisProcessHasOne) {
  const Result<std::vector<std::string>> words = ProcessCommandLine(getpid());
  ASSERT_TRUE(words.ok()) << words.status().ToString();
  ASSERT_FALSE(words->empty());
  EXPECT_FALSE(words->front().empty());
}

TEST(ProcessCommandLine, APidThatDoesNotExistIsNotFound) {
  // Above any pid_max Linux allows (2^22): never a process.
  const Result<std::vector<std::string>> words = ProcessCommandLine(INT_MAX);
  EXPECT_EQ(words.status().code(), Code::kNotFound) << words.status().ToString();
  EXPECT_EQ(ReadProcFile("/proc/2147483647/environ").status().code(), Code::kNotFound);
}

TEST(ProcessCommandLine, AnExitedProcessHasNoneThenIsNotFound) {
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    _exit(0);
  }
  siginfo_t info{};
  // Exited, not reaped: a zombie, whose command line is empty.
  ASSERT_EQ(waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOWAIT), 0);
  const Result<std::vector<std::string>> zombie = ProcessCommandLine(pid);
  ASSERT_TRUE(zombie.ok()) << zombie.status().ToString();
  EXPECT_TRUE(zombie->empty());
  ASSERT_EQ(waitpid(pid, nullptr, 0), pid);
  EXPECT_EQ(ProcessCommandLine(pid).status().code(), Code::kNotFound);
}

TEST(ProcessCommandLine, ProcessesExitingWhileProcIsReadAreSkipped) {
  // Children that exit while the launcher scans /proc for a replica: each one is gone, a zombie
  // or running when read, and none is an error or an exception.
  TempDir dir;
  ProcessLauncher launcher([](int, ExitStatus) {}, "/nonexistent/trainyard-replica", {});
  std::vector<pid_t> children;
  for (int i = 0; i < 20; ++i) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      _exit(0);
    }
    children.push_back(pid);
  }
  const Result<int> found = launcher.FindStarted(
      ProcessSpec{.log_path = dir.File("logs/x.log"), .exit_path = dir.File("run/x.exit")});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, 0);
  for (const pid_t pid : children) {
    EXPECT_FALSE(launcher
                     .Adopt(pid, ProcessSpec{.log_path = dir.File("logs/x.log"),
                                             .exit_path = dir.File("run/x.exit")})
                     .value());
    waitpid(pid, nullptr, 0);
  }
}

}  // namespace
}  // namespace trainyard::run::local
