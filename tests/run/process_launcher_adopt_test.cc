// ProcessLauncher::Adopt: a launcher taking over replicas an earlier launcher (an earlier server)
// started. Here the earlier launcher lives in this same process and is destroyed first, which
// leaves its replicas running and unwatched, as a server's exit does.
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakes/temp_dir.h"
#include "run/exit_recorder.h"
#include "run/local/process_launcher.h"
#include "run/local/spawn.h"
#include "run/log_file.h"
#include "run/stray_children.h"
#include "run/test_process.h"

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace trainyard::run::local {
namespace {

using ::trainyard::run::testing::kDeadlineMs;
using ::trainyard::run::testing::kSupervisor;

namespace fs = std::filesystem;
using ::trainyard::run::testing::CapturedText;
using ::trainyard::run::testing::ExitRecorder;
using ::trainyard::testing::TempDir;

const Environment kEnv = {{"PATH", "/usr/bin:/bin"}};

// Whether the process behind `pid` (a child of this test) ended within the deadline.
bool PidEndsWithinDeadline(int pid) {
  int pidfd = OpenPidFd(pid);
  pollfd fd{.fd = pidfd, .events = POLLIN};
  bool ended = pidfd >= 0 && poll(&fd, 1, kDeadlineMs) == 1;
  close(pidfd);
  return ended;
}

class AdoptTest : public ::testing::Test {
 protected:
  // Runs `script` with sh, once it has said it started (see StartWithAnEarlierLauncher).
  ProcessSpec Spec(const std::string& script, const std::string& task = "master-replica-0") {
    return ProcessSpec{.argv = {"sh", "-c", "echo started > " + Ready(task) + "; " + script},
                       .working_dir = dir_.File(task),
                       .log_path = dir_.File("logs/" + task + ".log"),
                       .exit_path = dir_.File("run/" + task + ".exit")};
  }
  std::string Ready(const std::string& task) const { return dir_.File(task + ".ready"); }

  // Starts `spec` with a launcher that is gone when this returns, once the trainer runs (a
  // supervisor still in its exec has no command line to recognize it by yet).
  int StartWithAnEarlierLauncher(const ProcessSpec& spec,
                                 const std::string& task = "master-replica-0") {
    EXPECT_EQ(mkfifo(Ready(task).c_str(), 0600), 0);
    int ready = open(Ready(task).c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    ExitRecorder unused;
    ProcessLauncher earlier(unused.Callback(), kSupervisor, kEnv);
    Result<int> pid = earlier.Start(spec);
    EXPECT_TRUE(pid.ok()) << pid.status().ToString();
    pollfd started{.fd = ready, .events = POLLIN};
    EXPECT_EQ(poll(&started, 1, kDeadlineMs), 1) << "the trainer did not start";
    close(ready);
    return pid.ok() ? strays_.Add(*pid) : -1;
  }

  TempDir dir_;
  ExitRecorder exits_;
  ProcessLauncher launcher_{exits_.Callback(), kSupervisor, kEnv};
  run::testing::StrayChildren strays_;  // destroyed first: killed while launcher_ watches
};

TEST_F(AdoptTest, AdoptedReplicaReportsItsExitCode) {
  const std::string go = dir_.File("go");
  ASSERT_EQ(mkfifo(go.c_str(), 0600), 0);
  int go_fd = open(go.c_str(), O_RDWR | O_CLOEXEC);  // never blocks; the trainer reads from it
  ASSERT_GE(go_fd, 0);
  ProcessSpec spec = Spec("read line < " + go + "; echo got $line; exit 7");
  int pid = StartWithAnEarlierLauncher(spec);
  ASSERT_GT(pid, 0);

  Result<bool> adopted = launcher_.Adopt(pid, spec);
  ASSERT_TRUE(adopted.ok()) << adopted.status().ToString();
  ASSERT_TRUE(*adopted);
  ASSERT_EQ(write(go_fd, "go\n", 3), 3);
  std::optional<ExitStatus> status = exits_.WaitFor(pid);
  close(go_fd);  // only now: the line is lost if the FIFO is closed before the trainer opens it
  ASSERT_TRUE(status.has_value());
  EXPECT_FALSE(status->signaled);
  EXPECT_EQ(status->code, 7);
  EXPECT_EQ(CapturedText(spec.log_path), "got go\n");
  EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), -1);  // reaped: no zombie is left behind
}

struct SignalCase {
  std::string name;
  int signal;
  bool exit_file;  // SIGKILL ends the supervisor too, before it writes one
};

class AdoptSignalTest : public AdoptTest, public ::testing::WithParamInterface<SignalCase> {};

TEST_P(AdoptSignalTest, AdoptedReplicaStoppedBySignalGroupIsReportedSignaled) {
  ProcessSpec spec = Spec("exec sleep 1000");
  int pid = StartWithAnEarlierLauncher(spec);
  ASSERT_GT(pid, 0);
  Result<bool> adopted = launcher_.Adopt(pid, spec);
  ASSERT_TRUE(adopted.ok() && *adopted);

  launcher_.SignalGroup(pid, GetParam().signal);
  std::optional<ExitStatus> status = exits_.WaitFor(pid);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(status->signaled);
  EXPECT_EQ(status->signal, GetParam().signal);
  EXPECT_EQ(fs::exists(spec.exit_path), GetParam().exit_file);
  EXPECT_EQ(exits_.exits()[pid].size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(Table, AdoptSignalTest,
                         ::testing::Values(SignalCase{"Sigterm", SIGTERM, true},
                                           SignalCase{"Sigkill", SIGKILL, false}),
                         [](const auto& tc) { return tc.param.name; });

TEST_F(AdoptTest, FinishedReplicaIsNotAdopted) {
  const std::string go = dir_.File("go");
  ASSERT_EQ(mkfifo(go.c_str(), 0600), 0);
  int go_fd = open(go.c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(go_fd, 0);
  ProcessSpec spec = Spec("read line < " + go + "; exit 5");  // ends once no launcher watches
  int pid = StartWithAnEarlierLauncher(spec);
  ASSERT_GT(pid, 0);
  ASSERT_EQ(write(go_fd, "go\n", 3), 3);
  const bool ended = PidEndsWithinDeadline(pid);
  close(go_fd);
  ASSERT_TRUE(ended);

  Result<bool> zombie = launcher_.Adopt(pid, spec);  // nobody has reaped it yet
  ASSERT_TRUE(zombie.ok()) << zombie.status().ToString();
  EXPECT_FALSE(*zombie);
  ASSERT_EQ(waitpid(pid, nullptr, 0), pid);
  Result<bool> gone = launcher_.Adopt(pid, spec);
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_FALSE(*gone);

  std::optional<ExitStatus> recorded = ReadExitStatus(spec.exit_path);  // what the caller reads
  ASSERT_TRUE(recorded.has_value());
  EXPECT_EQ(recorded->code, 5);
  EXPECT_TRUE(exits_.exits().empty());
}

TEST_F(AdoptTest, AnotherReplicasSupervisorIsNotAdopted) {
  ProcessSpec spec = Spec("exec sleep 1000");
  int pid = StartWithAnEarlierLauncher(spec);
  ASSERT_GT(pid, 0);
  for (const ProcessSpec& other :
       {Spec("exec sleep 1000", "worker-replica-0"), ProcessSpec{.argv = {"sleep", "1000"}}}) {
    Result<bool> adopted = launcher_.Adopt(pid, other);
    ASSERT_TRUE(adopted.ok()) << adopted.status().ToString();
    EXPECT_FALSE(*adopted) << other.exit_path;
  }
  kill(-pid, SIGKILL);
  EXPECT_EQ(waitpid(pid, nullptr, 0), pid);
  EXPECT_TRUE(exits_.exits().empty());
}

// A start whose pid an earlier server never recorded is found by its supervisor's command line.
TEST_F(AdoptTest, FindStartedFindsTheSupervisorOfThisSpecOnly) {
  ProcessSpec spec = Spec("exec sleep 1000");
  int pid = StartWithAnEarlierLauncher(spec);
  ASSERT_GT(pid, 0);
  Result<int> found = launcher_.FindStarted(spec);
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  EXPECT_EQ(*found, pid);
  Result<int> other = launcher_.FindStarted(Spec("exec sleep 1000", "worker-replica-0"));
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EXPECT_EQ(*other, 0);

  kill(-pid, SIGKILL);
  EXPECT_EQ(waitpid(pid, nullptr, 0), pid);
  Result<int> gone = launcher_.FindStarted(spec);
  ASSERT_TRUE(gone.ok()) << gone.status().ToString();
  EXPECT_EQ(*gone, 0);
}

TEST_F(AdoptTest, UnrelatedProcessesAreNotAdopted) {
  ProcessSpec spec = Spec("exec sleep 1000");
  std::vector<std::string> words = {"sleep", "1000"};
  std::vector<char*> argv = {words[0].data(), words[1].data(), nullptr};
  pid_t sleeper = -1;
  ASSERT_EQ(posix_spawn(&sleeper, "/bin/sleep", nullptr, nullptr, argv.data(), environ), 0);
  for (int pid : {static_cast<int>(getpid()), static_cast<int>(sleeper), 1, 0, -5}) {
    Result<bool> adopted = launcher_.Adopt(pid, spec);
    ASSERT_TRUE(adopted.ok()) << adopted.status().ToString();
    EXPECT_FALSE(*adopted) << "pid " << pid;
  }
  kill(sleeper, SIGKILL);
  EXPECT_EQ(waitpid(sleeper, nullptr, 0), sleeper);
  EXPECT_TRUE(exits_.exits().empty());
}

}  // namespace
}  // namespace trainyard::run::local
