// SpawnProcess with a user and a view (issue #31): pip's way of running a package's code. Needs
// root (a mount namespace, another user); skipped otherwise.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakes/temp_dir.h"
#include "run/local/spawn.h"
#include "run/test_process.h"

namespace trainyard::run::local {
namespace {

namespace fs = std::filesystem;
using ::trainyard::run::testing::AwaitSleepers;
using ::trainyard::run::testing::NoSleeperWithin;
using ::trainyard::run::testing::ReadFile;
using ::trainyard::run::testing::UniqueSleep;

TEST(SpawnProcessWithAView, SeesOnlyItsViewAndTakesWhatItStartedAlongWhenItEnds) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "a mount namespace and another user need root";
  }
  const ::trainyard::testing::TempDir dir;
  const std::string data = dir.File("data");
  fs::create_directories(data + "/install");
  fs::create_directories(data + "/jobs/other");
  std::ofstream(data + "/jobs/other/job.token") << "token\n";
  fs::permissions(data + "/install", fs::perms::all, fs::perm_options::add);
  const std::string sleep = UniqueSleep();
  Result<int> pid = SpawnProcess(
      SpawnSpec{
          .argv = {"/bin/sh", "-c",
                   "setsid sleep " + sleep +
                       " </dev/null >/dev/null 2>&1 &\n"
                       "ls " +
                       data + "; cat " + data +
                       "/jobs/other/job.token 2>&1 | "
                       "sed 's/.*: //'; touch made && echo made; id -u\n"
                       "while ! grep -q -x " +
                       sleep +
                       " /proc/[0-9]*/cmdline 2>/dev/null; do :; done\n"
                       "exit 4"},
          .working_dir = data + "/install",
          .stdout_path = dir.File("out.log"),
          .stderr_path = dir.File("out.log"),
          .user = RunAs{.name = "nobody", .uid = 65534, .gid = 65534},
          .view =
              FileView{.hidden = data, .writable = {data + "/install"}, .private_dirs = {"/tmp"}}},
      CurrentEnvironment());
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  ASSERT_EQ(AwaitSleepers(sleep, 1).size(), 1U);
  int status = 0;
  ASSERT_EQ(waitpid(*pid, &status, 0), *pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 4);
  EXPECT_EQ(ReadFile(dir.File("out.log")), "install\nNo such file or directory\nmade\n65534\n");
  EXPECT_TRUE(fs::exists(data + "/install/made"));
  EXPECT_TRUE(NoSleeperWithin(sleep)) << "the setsid child outlived the process";
}

}  // namespace
}  // namespace trainyard::run::local
