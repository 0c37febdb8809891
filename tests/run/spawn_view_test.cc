// SpawnProcess with a user and a view (issue #31): pip's way of running a package's code. Needs
// root (a mount namespace, another user); skipped otherwise.
#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakes/temp_dir.h"
#include "run/local/ipc_namespace.h"
#include "run/local/spawn.h"
#include "run/test_process.h"

namespace trainyard::run::local {
namespace {

namespace fs = std::filesystem;
using ::trainyard::run::testing::AwaitSleepers;
using ::trainyard::run::testing::kDeadlineMs;
using ::trainyard::run::testing::NoSleeperWithin;
using ::trainyard::run::testing::PidsWithArgument;
using ::trainyard::run::testing::ReadFile;
using ::trainyard::run::testing::UniqueSleep;

// A data directory whose `install/` the program (run as `nobody`) may write, as pip's target
// directory is; each test's spec starts from `Spec`.
class SpawnProcessWithAView : public ::testing::Test {
 protected:
  void SetUp() override {
    if (geteuid() != 0) {
      GTEST_SKIP() << "a mount namespace and another user need root";
    }
    fs::create_directories(data_ + "/install");
    fs::permissions(data_ + "/install", fs::perms::all, fs::perm_options::add);
  }

  // `argv` run as `nobody` in `working_dir` (the data directory's `install/` when empty), its
  // output in out.log, with `view`.
  SpawnSpec Spec(std::vector<std::string> argv, FileView view, std::string working_dir = "") const {
    return SpawnSpec{.argv = std::move(argv),
                     .working_dir = working_dir.empty() ? data_ + "/install" : working_dir,
                     .stdout_path = dir_.File("out.log"),
                     .stderr_path = dir_.File("out.log"),
                     .user = RunAs{.name = "nobody", .uid = 65534, .gid = 65534},
                     .view = std::move(view)};
  }
  // The data directory hidden, `install/` shown writable.
  FileView InstallView() const {
    return FileView{.hidden = data_, .writable = {data_ + "/install"}};
  }

  const ::trainyard::testing::TempDir dir_;
  const std::string data_ = dir_.File("data");
};

TEST_F(SpawnProcessWithAView, SeesOnlyItsViewAndTakesWhatItStartedAlongWhenItEnds) {
  fs::create_directories(data_ + "/jobs/other");
  std::ofstream(data_ + "/jobs/other/job.token") << "token\n";
  const std::string sleep = UniqueSleep();
  FileView view = InstallView();
  view.private_dirs = {"/tmp"};
  Result<int> pid = SpawnProcess(Spec({"/bin/sh", "-c",
                                       "setsid sleep " + sleep +
                                           " </dev/null >/dev/null 2>&1 &\n"
                                           "ls " +
                                           data_ + "; cat " + data_ +
                                           "/jobs/other/job.token 2>&1 | "
                                           "sed 's/.*: //'; touch made && echo made; id -u\n"
                                           "while ! grep -q -x " +
                                           sleep +
                                           " /proc/[0-9]*/cmdline 2>/dev/null; do :; done\n"
                                           "exit 4"},
                                      view),
                                 CurrentEnvironment());
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  // Once seen without its sleeper (ASan, full suite): what the program said then is printed.
  ASSERT_EQ(AwaitSleepers(sleep, 1).size(), 1U) << "its output: " << ReadFile(dir_.File("out.log"));
  int status = 0;
  ASSERT_EQ(waitpid(*pid, &status, 0), *pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 4);
  EXPECT_EQ(ReadFile(dir_.File("out.log")), "install\nNo such file or directory\nmade\n65534\n");
  EXPECT_TRUE(fs::exists(data_ + "/install/made"));
  EXPECT_TRUE(NoSleeperWithin(sleep)) << "the setsid child outlived the process";
}

// The child SpawnProcess returns stays outside the program's PID namespace and never execs: it
// must not keep what it inherited (a killed server's listening socket kept its port taken, so
// the next server could not start while an install ran).
TEST_F(SpawnProcessWithAView, KeepsNoDescriptorOfTheSpawningProcess) {
  // As a server's descriptors are: one inheritable, one close-on-exec.
  const int inheritable = open("/dev/null", O_RDONLY);
  const int cloexec = open("/dev/null", O_RDONLY | O_CLOEXEC);
  ASSERT_GE(inheritable, 0);
  ASSERT_GE(cloexec, 0);
  const std::string sleep = UniqueSleep();
  Result<int> pid = SpawnProcess(Spec({"/bin/sleep", sleep}, InstallView()), CurrentEnvironment());
  close(inheritable);
  close(cloexec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  ASSERT_EQ(AwaitSleepers(sleep, 1).size(), 1U);
  // The outside child closes them once it has forked the program: soon after, not at once.
  const std::vector<std::string> stdio = {"0", "1", "2"};
  std::vector<std::string> open_fds;
  ::trainyard::testing::WaitUntil(
      [&] {
        open_fds.clear();
        std::error_code error;
        for (const auto& entry :
             fs::directory_iterator("/proc/" + std::to_string(*pid) + "/fd", error)) {
          open_fds.push_back(entry.path().filename().string());
        }
        std::ranges::sort(open_fds);
        return open_fds == stdio;
      },
      std::chrono::milliseconds(kDeadlineMs));
  EXPECT_EQ(open_fds, stdio);
  kill(*pid, SIGKILL);  // ends the namespace too (the program's parent-death signal)
  int status = 0;
  ASSERT_EQ(waitpid(*pid, &status, 0), *pid);
  EXPECT_TRUE(NoSleeperWithin(sleep));
}

// Issue #31: root makes the view's mount points after the job's private /tmp, shared by its
// replicas, is shown. A link an earlier replica left there, on the way to a later mount point
// (a data directory below /tmp, as here), is never followed: the view fails, and nothing is
// made where the link points.
TEST_F(SpawnProcessWithAView, ALinkOnTheWayToAMountPointFailsTheView) {
  const fs::path below_tmp = fs::path(dir_.path()).lexically_relative("/tmp");
  if (below_tmp.empty() || *below_tmp.begin() == "..") {
    GTEST_SKIP() << "the test's directory is not below /tmp";
  }
  // Where the link points: outside /tmp, which the job's own covers in its namespace.
  std::string outside = "/var/tmp/trainyard_outside_XXXXXX";
  ASSERT_NE(mkdtemp(outside.data()), nullptr);
  const std::unique_ptr<const std::string, void (*)(const std::string*)> remove_outside(
      &outside, [](const std::string* path) {
        std::error_code ignored;
        fs::remove_all(*path, ignored);
      });
  // The job's /tmp as an earlier replica left it: the first directory of the data directory's
  // path below /tmp is a link to elsewhere.
  const std::string job_tmp = dir_.File("private/tmp");
  fs::create_directories(job_tmp);
  fs::permissions(job_tmp, fs::perms::all | fs::perms::sticky_bit);
  fs::create_directory_symlink(outside, job_tmp + "/" + below_tmp.begin()->string());

  FileView view = InstallView();
  view.private_dirs = {"/tmp"};
  view.private_root = dir_.File("private");
  Result<int> pid = SpawnProcess(Spec({"/bin/true"}, view), CurrentEnvironment());
  if (pid.ok()) {
    waitpid(*pid, nullptr, 0);
  }
  EXPECT_TRUE(ReleaseIpcNamespace(dir_.File("private")).ok());  // made before the view failed
  EXPECT_FALSE(pid.ok());
  EXPECT_NE(pid.status().message().find(Errno(ELOOP)), std::string::npos)
      << pid.status().ToString();
  EXPECT_TRUE(fs::is_empty(outside)) << pid.status().ToString();
}

// A data directory the operator names through a link is hidden all the same: links in the
// operator's part of the paths are resolved before the job's namespace exists.
TEST_F(SpawnProcessWithAView, ADataDirectoryNamedThroughALinkIsStillHidden) {
  fs::create_directories(dir_.File("real/data/install"));
  fs::create_directories(dir_.File("real/data/jobs/other"));
  fs::permissions(dir_.File("real/data/install"), fs::perms::all, fs::perm_options::add);
  fs::create_directory_symlink(dir_.File("real"), dir_.File("link"));
  fs::permissions(dir_.path(), fs::perms::others_exec, fs::perm_options::add);
  const std::string data = dir_.File("link/data");
  Result<int> pid = SpawnProcess(
      Spec({"/bin/ls", data}, FileView{.hidden = data, .writable = {data + "/install"}},
           data + "/install"),
      CurrentEnvironment());
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  int status = 0;
  ASSERT_EQ(waitpid(*pid, &status, 0), *pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(ReadFile(dir_.File("out.log")), "install\n");
}

// An install whose server is killed (before it could record the install's pid, or after) ends
// with it: the child SpawnProcess forked dies with the process that forked it, and with that
// child the program and everything in its PID namespace.
TEST_F(SpawnProcessWithAView, TheProgramEndsWithTheProcessThatSpawnedIt) {
  const std::string sleep = UniqueSleep();
  const SpawnSpec spec =
      Spec({"/bin/sh", "-c", "setsid sleep " + sleep + " & sleep " + sleep}, InstallView());
  const Environment env = CurrentEnvironment();
  // The server: spawns the program, then waits (as the staging thread does) until killed.
  const pid_t server = fork();
  ASSERT_GE(server, 0);
  if (server == 0) {
    if (SpawnProcess(spec, env).ok()) {
      while (true) {
        pause();
      }
    }
    _exit(1);
  }
  const std::vector<int> sleepers = AwaitSleepers(sleep, 2);
  EXPECT_EQ(sleepers.size(), 2U);
  kill(server, SIGKILL);
  ASSERT_EQ(waitpid(server, nullptr, 0), server);
  EXPECT_TRUE(NoSleeperWithin(sleep)) << "the install outlived its server";
  for (const int pid : PidsWithArgument(sleep)) {
    kill(pid, SIGKILL);  // a failed run's leftovers
  }
}

}  // namespace
}  // namespace trainyard::run::local
