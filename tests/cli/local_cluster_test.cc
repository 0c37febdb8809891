// `RunLocalCluster` with real children (/bin/sh scripts): the primary's exit code is the result,
// the others are stopped and reaped, signals to this process reach the primary.
#include "cli/local/local_cluster.h"

#include <csignal>
#include <fstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "fakes/temp_dir.h"

namespace trainyard::cli {
namespace {

using ::testing::HasSubstr;

// Bounds every wait in the scripts (3000 × 10 ms) so a broken runner fails instead of hanging.
constexpr const char* kWaitFor =
    "wait_for() { i=0; while [ ! -s \"$1\" ]; do i=$((i+1)); [ $i -gt 3000 ] && exit 99; "
    "sleep 0.01; done; }; ";

ChildSpec Sh(const testing::TempDir& dir, const std::string& script) {
  return {.argv = {"/bin/sh", "-c", std::string(kWaitFor) + script}, .working_dir = dir.path()};
}

std::string Read(const std::string& path) {
  std::ifstream in(path);
  std::string text;
  std::getline(in, text);
  return text;
}

// True when no process `pid` exists: the child ended and was reaped.
bool Gone(const std::string& pid_text) {
  const int pid = std::stoi(pid_text);
  return kill(pid, 0) == -1 && errno == ESRCH;
}

TEST(RunLocalCluster, ThePrimarysExitCodeIsTheResultAndNoOtherProcessRemains) {
  testing::TempDir dir;
  const std::vector<ChildSpec> others = {
      Sh(dir, "echo $$ > a.pid; exec sleep 1000"),
      // Ignores SIGTERM (and so does its `sleep`): only the group's SIGKILL stops it.
      Sh(dir, "trap '' TERM; echo $$ > b.pid; while :; do sleep 1; done")};
  const Result<int> rc = RunLocalCluster(others, Sh(dir, "wait_for a.pid; wait_for b.pid; exit 3"),
                                         std::chrono::milliseconds(100));
  ASSERT_TRUE(rc.ok()) << rc.status().ToString();
  EXPECT_EQ(*rc, 3);
  EXPECT_TRUE(Gone(Read(dir.File("a.pid"))));
  EXPECT_TRUE(Gone(Read(dir.File("b.pid"))));
}

TEST(RunLocalCluster, APrimaryKilledByASignalGives128PlusTheSignal) {
  testing::TempDir dir;
  const Result<int> rc = RunLocalCluster({}, Sh(dir, "kill -KILL $$"));
  ASSERT_TRUE(rc.ok()) << rc.status().ToString();
  EXPECT_EQ(*rc, 128 + SIGKILL);
}

TEST(RunLocalCluster, SigtermToThisProcessTerminatesThePrimaryAndIsConsumed) {
  testing::TempDir dir;
  const std::vector<ChildSpec> others = {Sh(dir, "echo $$ > a.pid; exec sleep 1000")};
  // $PPID is this test process.
  const Result<int> rc = RunLocalCluster(
      others, Sh(dir,
                 "trap 'echo terminated > t; exit 7' TERM; wait_for a.pid; kill -TERM $PPID; "
                 "i=0; while [ $i -lt 3000 ]; do i=$((i+1)); sleep 0.01; done; exit 9"));
  ASSERT_TRUE(rc.ok()) << rc.status().ToString();
  EXPECT_EQ(*rc, 7);
  EXPECT_EQ(Read(dir.File("t")), "terminated");
  EXPECT_TRUE(Gone(Read(dir.File("a.pid"))));
  sigset_t pending;
  sigpending(&pending);
  EXPECT_EQ(sigismember(&pending, SIGTERM), 0);
}

TEST(RunLocalCluster, OthersLeadTheirOwnGroupsAndThePrimaryStaysInOurs) {
  testing::TempDir dir;
  // Field 5 of /proc/PID/stat is the process group.
  const std::vector<ChildSpec> others = {
      Sh(dir,
         "set -- $(cat /proc/$$/stat); echo \"$5 $$ $(readlink /proc/$$/fd/0)\" > bg; "
         "exec sleep 1000")};
  ChildSpec primary = Sh(dir,
                         "wait_for bg; set -- $(cat /proc/$$/stat); echo $5 > fg; "
                         "echo \"$TF_CONFIG|$(pwd)\" > env");
  primary.env = {{"TF_CONFIG", "{\"task\":{}}"}};
  const Result<int> rc = RunLocalCluster(others, primary);
  ASSERT_TRUE(rc.ok()) << rc.status().ToString();
  EXPECT_EQ(*rc, 0);
  const std::string background = Read(dir.File("bg"));
  const std::string pgrp = background.substr(0, background.find(' '));
  EXPECT_EQ(background, pgrp + " " + pgrp + " /dev/null");
  EXPECT_EQ(Read(dir.File("fg")), std::to_string(getpgrp()));
  EXPECT_EQ(Read(dir.File("env")), "{\"task\":{}}|" + dir.path().string());
}

TEST(RunLocalCluster, AProgramThatCannotStartIsAnError) {
  testing::TempDir dir;
  const Result<int> rc = RunLocalCluster({Sh(dir, "exec sleep 1000")},
                                         {.argv = {"/nonexistent/python", "-m", "trainer.task"}});
  ASSERT_FALSE(rc.ok());
  EXPECT_THAT(rc.status().message(),
              HasSubstr("Cannot run [/nonexistent/python]: No such file or directory"));
}

}  // namespace
}  // namespace trainyard::cli
