#include "run/local/process_launcher.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fakes/temp_dir.h"
#include "run/exit_recorder.h"
#include "run/local/spawn.h"
#include "run/local/supervisor_command.h"
#include "run/log_file.h"
#include "run/test_process.h"

namespace trainyard::run::local {
namespace {

using ::trainyard::run::testing::kDeadlineMs;
using ::trainyard::run::testing::kSupervisor;

namespace fs = std::filesystem;
using ::trainyard::run::testing::CapturedText;
using ::trainyard::run::testing::ExitRecorder;
using ::trainyard::testing::TempDir;

// A spec whose log and exit files are under `dir`.
ProcessSpec SpecIn(const TempDir& dir, std::vector<std::string> argv,
                   const std::string& task = "replica") {
  return ProcessSpec{.argv = std::move(argv),
                     .log_path = dir.File("logs/" + task + ".log"),
                     .exit_path = dir.File("run/" + task + ".exit")};
}

// Whether the process behind `pidfd` ended within the deadline (a pidfd polls readable then).
bool EndsWithinDeadline(int pidfd) {
  pollfd fd{.fd = pidfd, .events = POLLIN};
  return poll(&fd, 1, kDeadlineMs) == 1;
}

bool IsRunning(int pidfd) {
  pollfd fd{.fd = pidfd, .events = POLLIN};
  return poll(&fd, 1, 0) == 0;
}

class ProcessLauncherTest : public ::testing::Test {
 protected:
  ProcessSpec Spec(std::vector<std::string> argv) const {
    ProcessSpec spec = SpecIn(dir_, std::move(argv));
    spec.working_dir = dir_.File("work");
    return spec;
  }
  // Starts `spec` and waits for its exit.
  ExitStatus Run(const ProcessSpec& spec) {
    Result<int> pid = launcher_.Start(spec);
    EXPECT_TRUE(pid.ok()) << pid.status().ToString();
    if (!pid.ok()) {
      return ExitStatus{.code = -1};
    }
    std::optional<ExitStatus> status = exits_.WaitFor(*pid);
    EXPECT_TRUE(status.has_value()) << "no exit reported for " << spec.argv[0];
    return status.value_or(ExitStatus{.code = -1});
  }

  TempDir dir_;
  ExitRecorder exits_;
  ProcessLauncher launcher_{
      exits_.Callback(), kSupervisor, {{"PATH", "/usr/bin:/bin"}, {"KEEP", "base"}}};
};

TEST_F(ProcessLauncherTest, ReportsExitCodeAndRecordsOutputAndExit) {
  ProcessSpec spec = Spec({"/bin/sh", "-c", "echo out; echo err >&2; exit 3"});
  ExitStatus first = Run(spec);
  EXPECT_FALSE(first.signaled);
  EXPECT_EQ(first.code, 3);
  EXPECT_EQ(CapturedText(spec.log_path, 'O'), "out\n");
  EXPECT_EQ(CapturedText(spec.log_path, 'E'), "err\n");
  std::optional<ExitStatus> recorded = ReadExitStatus(spec.exit_path);
  ASSERT_TRUE(recorded.has_value());
  EXPECT_EQ(recorded->code, 3);

  EXPECT_EQ(Run(spec).code, 3);  // a restart appends
  EXPECT_EQ(CapturedText(spec.log_path, 'O'), "out\nout\n");
  EXPECT_EQ(CapturedText(spec.log_path, 'E'), "err\nerr\n");
}

TEST_F(ProcessLauncherTest, TrainerRunsUnderTheSupervisorWhichLeadsItsGroup) {
  ProcessSpec spec = Spec({"sh", "-c", "echo $PPID $(cut -d' ' -f5 /proc/$$/stat)"});
  Result<int> pid = launcher_.Start(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  std::ifstream cmdline("/proc/" + std::to_string(*pid) + "/cmdline");
  std::string program;
  std::getline(cmdline, program, '\0');  // empty when it has ended already
  EXPECT_TRUE(program.empty() || program == kSupervisor) << program;
  ASSERT_TRUE(exits_.WaitFor(*pid).has_value());
  EXPECT_EQ(CapturedText(spec.log_path), std::to_string(*pid) + " " + std::to_string(*pid) + "\n");
}

TEST_F(ProcessLauncherTest, StartRemovesTheExitFileOfAnEarlierRun) {
  ProcessSpec spec = Spec({"sleep", "100"});
  fs::create_directories(fs::path(spec.exit_path).parent_path());
  std::ofstream(spec.exit_path) << "exited 0\n";
  Result<int> pid = launcher_.Start(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  EXPECT_FALSE(fs::exists(spec.exit_path));
  launcher_.SignalGroup(*pid, SIGKILL);
  ASSERT_TRUE(exits_.WaitFor(*pid).has_value());
}

TEST(ProcessLauncherSupervisor, MissingSupervisorIsAnInternalError) {
  TempDir dir;
  ExitRecorder exits;
  ProcessLauncher launcher(exits.Callback(), dir.File("nowhere/trainyard-replica"));
  Result<int> pid = launcher.Start(SpecIn(dir, {"true"}));
  EXPECT_EQ(pid.status().code(), Code::kInternal) << pid.status().ToString();
  EXPECT_NE(pid.status().message().find("trainyard-replica"), std::string::npos);
}

TEST(ProcessLauncherSupervisor, DefaultIsNextToThisExecutable) {
  EXPECT_EQ(DefaultSupervisorPath(),
            (fs::read_symlink("/proc/self/exe").parent_path() / "trainyard-replica").string());
}

TEST_F(ProcessLauncherTest, RunsInTheWorkingDirCreatingIt) {
  ProcessSpec spec = Spec({"sh", "-c", "pwd -P"});
  spec.working_dir = dir_.File("jobs/j1/replicas/master-0");
  EXPECT_TRUE(Run(spec).Succeeded());
  EXPECT_EQ(CapturedText(spec.log_path), fs::canonical(spec.working_dir).string() + "\n");
}

TEST_F(ProcessLauncherTest, SpecEnvOverridesTheBaseEnvironment) {
  ProcessSpec spec =
      Spec({"sh", "-c", "echo \"$KEEP $OVER $NEW ${HOME-unset} ${TY_NOT_INHERITED-unset}\""});
  spec.env = {{"OVER", "spec"}, {"NEW", "new"}, {"KEEP", "base"}};
  setenv("TY_NOT_INHERITED", "leak", 1);  // in this process, not in the launcher's base env
  EXPECT_TRUE(Run(spec).Succeeded());
  unsetenv("TY_NOT_INHERITED");
  EXPECT_EQ(CapturedText(spec.log_path), "base spec new unset unset\n");
}

// Issue #31: the job's environment (LD_PRELOAD and a marker) reaches the trainer, not its
// supervisor, whose whole environment is the fixed PATH (read from /proc/<supervisor>/environ by
// the trainer, its child).
TEST_F(ProcessLauncherTest, JobEnvironmentReachesTheTrainerButNotTheSupervisor) {
  ProcessSpec spec = Spec({"sh", "-c",
                           "echo \"$TY_MARKER $LD_PRELOAD $KEEP\"; "
                           "tr '\\0' '\\n' < /proc/$PPID/environ"});
  spec.env = {{"TY_MARKER", "job"}, {"LD_PRELOAD", "/nonexistent/preload.so"}};
  EXPECT_TRUE(Run(spec).Succeeded());
  EXPECT_EQ(CapturedText(spec.log_path, 'O'),
            "job /nonexistent/preload.so base\nPATH=" + std::string(kSupervisorPath) + "\n");
}

TEST(ProcessLauncherEnvironment, DefaultBaseIsThisProcessEnvironment) {
  TempDir dir;
  ExitRecorder exits;
  ASSERT_EQ(setenv("TY_INHERITED", "from-server", 1), 0);
  ProcessLauncher launcher(exits.Callback(), kSupervisor);
  unsetenv("TY_INHERITED");
  ProcessSpec spec = SpecIn(dir, {"sh", "-c", "echo $TY_INHERITED"});
  Result<int> pid = launcher.Start(spec);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  ASSERT_TRUE(exits.WaitFor(*pid).has_value());
  EXPECT_EQ(CapturedText(spec.log_path), "from-server\n");
}

TEST_F(ProcessLauncherTest, LooksUpTheProgramOnTheMergedPath) {
  fs::create_directories(dir_.path() / "bin");
  std::ofstream(dir_.File("bin/mytool")) << "#!/bin/sh\necho mytool ran\n";
  fs::permissions(dir_.File("bin/mytool"), fs::perms::owner_all);
  ProcessSpec spec = Spec({"mytool"});
  spec.env = {{"PATH", dir_.File("bin") + ":/usr/bin:/bin"}};
  EXPECT_TRUE(Run(spec).Succeeded());
  EXPECT_EQ(CapturedText(spec.log_path), "mytool ran\n");
}

TEST_F(ProcessLauncherTest, MissingProgramFailsBeforeSpawning) {
  ProcessSpec spec = Spec({"python9", "-m", "trainer.task"});
  Result<int> pid = launcher_.Start(spec);
  EXPECT_EQ(pid.status(), Status::FailedPrecondition("Cannot run python9: not found on PATH"));
  EXPECT_FALSE(fs::exists(spec.working_dir));  // nothing was set up for it
  EXPECT_FALSE(fs::exists(spec.log_path));
}

TEST_F(ProcessLauncherTest, NonExecutableProgramFailsBeforeSpawning) {
  std::ofstream(dir_.File("script.sh")) << "#!/bin/sh\n";
  fs::permissions(dir_.File("script.sh"), fs::perms::owner_read | fs::perms::owner_write);
  Result<int> pid = launcher_.Start(Spec({dir_.File("script.sh")}));
  EXPECT_EQ(pid.status(), Status::FailedPrecondition("Cannot run " + dir_.File("script.sh") +
                                                     ": not executable"));
}

TEST_F(ProcessLauncherTest, SignalGroupKillIsReportedAsSignaled) {
  Result<int> pid = launcher_.Start(Spec({"sleep", "100"}));
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  EXPECT_EQ(getpgid(*pid), *pid);  // leads its own group
  launcher_.SignalGroup(*pid, SIGKILL);
  std::optional<ExitStatus> status = exits_.WaitFor(*pid);
  ASSERT_TRUE(status.has_value());
  EXPECT_TRUE(status->signaled);
  EXPECT_EQ(status->signal, SIGKILL);
  launcher_.SignalGroup(*pid, SIGKILL);  // gone already: not an error
}

TEST_F(ProcessLauncherTest, ChildSeesDefaultSignalActionsEvenIfTheServerIgnoresThem) {
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old {};
  ASSERT_EQ(sigaction(SIGTERM, &ignore, &old), 0);
  Result<int> pid = launcher_.Start(Spec({"sleep", "100"}));
  sigaction(SIGTERM, &old, nullptr);
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  launcher_.SignalGroup(*pid, SIGTERM);
  std::optional<ExitStatus> status = exits_.WaitFor(*pid);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->Describe(), "was terminated by signal 15 (SIGTERM)");
}

TEST_F(ProcessLauncherTest, SignalGroupReachesGrandchildren) {
  std::string fifo = dir_.File("started");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  const std::string sleep = ::trainyard::run::testing::UniqueSleep();
  Result<int> pid = launcher_.Start(
      Spec({"sh", "-c", "sleep " + sleep + " & echo started > " + fifo + "; wait"}));
  ASSERT_TRUE(pid.ok()) << pid.status().ToString();
  pollfd ready{.fd = reader, .events = POLLIN};
  ASSERT_EQ(poll(&ready, 1, kDeadlineMs), 1) << "the child never said it started its grandchild";
  close(reader);
  const std::vector<int> grandchildren = ::trainyard::run::testing::AwaitSleepers(sleep, 1);
  ASSERT_EQ(grandchildren.size(), 1U);
  int grandchild_fd = OpenPidFd(grandchildren[0]);
  ASSERT_GE(grandchild_fd, 0);
  EXPECT_TRUE(IsRunning(grandchild_fd));

  launcher_.SignalGroup(*pid, SIGKILL);
  std::optional<ExitStatus> status = exits_.WaitFor(*pid);
  ASSERT_TRUE(status.has_value());
  EXPECT_EQ(status->signal, SIGKILL);
  EXPECT_TRUE(EndsWithinDeadline(grandchild_fd))
      << "grandchild " << grandchildren[0] << " survived";
  close(grandchild_fd);
}

TEST_F(ProcessLauncherTest, ConcurrentStartsAreEachReportedExactlyOnce) {
  constexpr int kThreads = 5;
  constexpr int kPerThread = 10;
  std::mutex mu;
  std::map<int, int> expected_code;  // pid -> code
  {
    std::vector<std::jthread> threads;
    threads.reserve(kThreads);
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] {
        for (int i = 0; i < kPerThread; ++i) {
          int code = (t * kPerThread + i) % 7;
          ProcessSpec spec = SpecIn(dir_, {"sh", "-c", "exit " + std::to_string(code)},
                                    std::to_string(t) + "-" + std::to_string(i));
          Result<int> pid = launcher_.Start(spec);
          ASSERT_TRUE(pid.ok()) << pid.status().ToString();
          std::lock_guard lock(mu);
          expected_code[*pid] = code;
        }
      });
    }
  }
  ASSERT_EQ(expected_code.size(), static_cast<size_t>(kThreads * kPerThread));
  ASSERT_TRUE(exits_.WaitForTotal(kThreads * kPerThread));
  auto exits = exits_.exits();
  EXPECT_EQ(exits.size(), expected_code.size());
  for (const auto& [pid, code] : expected_code) {
    ASSERT_EQ(exits[pid].size(), 1u) << "pid " << pid;
    EXPECT_EQ(exits[pid][0].code, code) << "pid " << pid;
  }
}

TEST(ProcessLauncherCallback, MayStartAnotherProcess) {
  TempDir dir;
  ExitRecorder exits;
  auto record = exits.Callback();
  std::atomic<int> restarted{0};
  ProcessLauncher* self = nullptr;
  ProcessLauncher launcher(
      [&](int pid, ExitStatus status) {
        if (restarted.load() == 0) {  // as a controller restarting a replica would
          Result<int> again = self->Start(SpecIn(dir, {"true"}, "again"));
          restarted = again.ok() ? *again : -1;
        }
        record(pid, status);
      },
      kSupervisor, Environment{{"PATH", "/usr/bin:/bin"}});
  self = &launcher;
  Result<int> first = launcher.Start(SpecIn(dir, {"false"}, "first"));
  ASSERT_TRUE(first.ok()) << first.status().ToString();
  ASSERT_TRUE(exits.WaitFor(*first).has_value());
  ASSERT_GT(restarted.load(), 0);
  std::optional<ExitStatus> second = exits.WaitFor(restarted.load());
  ASSERT_TRUE(second.has_value());
  EXPECT_TRUE(second->Succeeded());
}

TEST_F(ProcessLauncherTest, ChildInheritsNoOtherFileDescriptors) {
  int leaky = open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(leaky, 3);
  std::string fd = "/proc/$$/fd/";
  ProcessSpec spec = Spec({"sh", "-c",
                           "for n in 0 1 2 " + std::to_string(leaky) + "; do [ -e " + fd +
                               "$n ] && echo open $n || echo closed $n; done"});
  EXPECT_TRUE(Run(spec).Succeeded());
  close(leaky);
  EXPECT_EQ(CapturedText(spec.log_path),
            "open 0\nopen 1\nopen 2\nclosed " + std::to_string(leaky) + "\n");
}

TEST(ProcessLauncherLifetime, DestructorLeavesChildrenRunning) {
  TempDir dir;
  ExitRecorder exits;
  int pid = 0;
  {
    ProcessLauncher launcher(exits.Callback(), kSupervisor, {{"PATH", "/usr/bin:/bin"}});
    Result<int> started = launcher.Start(SpecIn(dir, {"sleep", "100"}));
    ASSERT_TRUE(started.ok()) << started.status().ToString();
    pid = *started;
  }
  int pidfd = OpenPidFd(pid);
  ASSERT_GE(pidfd, 0);
  EXPECT_TRUE(IsRunning(pidfd));
  close(pidfd);
  kill(-pid, SIGKILL);
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFSIGNALED(status));
  EXPECT_TRUE(exits.exits().empty());  // nothing reported after the launcher was gone
}

TEST_F(ProcessLauncherTest, FreePortsAreDistinctLoopbackPorts) {
  Result<std::vector<int>> ports = launcher_.FreePorts(20);
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  ASSERT_EQ(ports->size(), 20u);
  EXPECT_EQ(std::set<int>(ports->begin(), ports->end()).size(), 20u);
  for (int port : *ports) {
    EXPECT_GT(port, 0);
    EXPECT_LT(port, 65536);
  }
  Result<std::vector<int>> none = launcher_.FreePorts(0);
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

// An outgoing connection's source port is one of the kernel's ephemeral ports: replica ports are
// chosen below that range, so no connection can take one between the choice and the replica's
// bind.
TEST_F(ProcessLauncherTest, FreePortsLieBelowTheEphemeralRange) {
  std::ifstream range("/proc/sys/net/ipv4/ip_local_port_range");
  int low = 0;
  int high = 0;
  ASSERT_TRUE(range >> low >> high);
  if (low < 11000) {
    GTEST_SKIP() << "the ephemeral range starts at " << low << ": no room below it";
  }
  Result<std::vector<int>> ports = launcher_.FreePorts(50);
  ASSERT_TRUE(ports.ok()) << ports.status().ToString();
  for (int port : *ports) {
    EXPECT_GE(port, 10000);
    EXPECT_LT(port, low);
  }
}

}  // namespace
}  // namespace trainyard::run::local
