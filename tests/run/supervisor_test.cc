// The replica supervisor, `trainyard-replica`, run for real (the executable the build made).
#include "run/local/supervisor.h"

#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "fakes/temp_dir.h"
#include "run/local/ipc_namespace.h"
#include "run/local/spawn.h"
#include "run/local/supervisor_command.h"
#include "run/log_file.h"
#include "run/stray_children.h"
#include "run/test_process.h"
#include "support/wait.h"

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace trainyard::run::local {
namespace {

using ::trainyard::run::testing::AwaitSleepers;
using ::trainyard::run::testing::kDeadlineMs;
using ::trainyard::run::testing::kSupervisor;
using ::trainyard::run::testing::NoSleeperWithin;
using ::trainyard::run::testing::PidsWithArgument;
using ::trainyard::run::testing::ReadFile;
using ::trainyard::run::testing::UniqueSleep;

namespace fs = std::filesystem;
using ::trainyard::run::testing::CapturedStreams;
using ::trainyard::run::testing::CapturedText;
using ::trainyard::run::testing::ReadCaptured;
using ::trainyard::testing::TempDir;

// `words` as execve wants them.
std::vector<char*> Pointers(std::vector<std::string>& words) {
  std::vector<char*> pointers;
  pointers.reserve(words.size() + 1);
  for (std::string& word : words) {
    pointers.push_back(word.data());
  }
  pointers.push_back(nullptr);
  return pointers;
}

// A FIFO the trainer writes one line to (a pid, "ready"), opened here before the trainer starts.
class Fifo {
 public:
  explicit Fifo(const std::string& path) : path_(path) {
    EXPECT_EQ(mkfifo(path.c_str(), 0600), 0);
    fd_ = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    EXPECT_GE(fd_, 0);
  }
  Fifo(const Fifo&) = delete;
  Fifo& operator=(const Fifo&) = delete;
  ~Fifo() { close(fd_); }

  const std::string& path() const { return path_; }
  // What the trainer wrote; empty when it wrote nothing within the deadline.
  std::string Read() {
    pollfd ready{.fd = fd_, .events = POLLIN};
    if (poll(&ready, 1, kDeadlineMs) != 1) {
      return "";
    }
    std::array<char, 64> buffer{};
    ssize_t got = read(fd_, buffer.data(), buffer.size() - 1);
    std::string text(buffer.data(), got > 0 ? got : 0);
    return text.substr(0, text.find('\n'));
  }

 private:
  std::string path_;
  int fd_ = -1;
};

class SupervisorTest : public ::testing::Test {
 protected:
  // Starts the supervisor for `argv` as a child of this test, leading its own process group, as
  // ProcessLauncher does.
  int Start(const std::vector<std::string>& argv, const std::string& user = "",
            const FileView& view = {}, bool held = false) {
    std::vector<std::string> command =
        SupervisorCommand(kSupervisor, {.log_path = Log(),
                                        .exit_path = Exit(),
                                        .user = user,
                                        .env_fd = env_fd_ >= 0 ? STDIN_FILENO : -1,
                                        .view = view,
                                        .held = held,
                                        .argv = argv});
    std::vector<char*> pointers = Pointers(command);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
    posix_spawnattr_setpgroup(&attr, 0);
    sigset_t stops;  // as ProcessLauncher starts it
    sigemptyset(&stops);
    for (int signal : kStopSignals) {
      sigaddset(&stops, signal);
    }
    sigaddset(&stops, kHoldRelease);
    posix_spawnattr_setsigmask(&attr, &stops);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    fs::create_directories(dir_.File("work"));
    posix_spawn_file_actions_addchdir_np(&actions, dir_.File("work").c_str());
    if (env_fd_ >= 0) {  // the trainer's environment on the supervisor's stdin, as the launcher's
      posix_spawn_file_actions_adddup2(&actions, env_fd_, STDIN_FILENO);
    }
    pid_t pid = -1;
    int rc = posix_spawn(&pid, kSupervisor, &actions, &attr, pointers.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
    EXPECT_EQ(rc, 0) << std::strerror(rc);
    return strays_.Add(pid);
  }
  int StartShell(const std::string& script) { return Start({"/bin/sh", "-c", script}); }

  // The supervisor's wait status; -1 when it did not end within the deadline (it is killed).
  static int Wait(int pid) {
    int pidfd = OpenPidFd(pid);
    pollfd ended{.fd = pidfd, .events = POLLIN};
    bool in_time = pidfd >= 0 && poll(&ended, 1, kDeadlineMs) == 1;
    close(pidfd);
    if (!in_time) {
      kill(-pid, SIGKILL);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return in_time ? status : -1;
  }

  std::string Log() const { return dir_.File("logs/master-replica-0.log"); }
  std::string Exit() const { return dir_.File("run/master-replica-0.exit"); }
  // How the exit file says the trainer ended: its first line ("exited 0\n"), or "" for none.
  std::string ExitHow() const {
    const std::string text = ReadFile(Exit());
    return text.substr(0, text.find('\n') + 1);
  }

  // A memfd holding `env` as the supervisor reads it, which Start() then hands it (--env-fd 0).
  void GiveEnvironment(const Environment& env) {
    env_fd_ = memfd_create("trainer-env", MFD_CLOEXEC);
    ASSERT_GE(env_fd_, 0);
    const std::string text = EncodeEnvironment(env);
    ASSERT_EQ(write(env_fd_, text.data(), text.size()), static_cast<ssize_t>(text.size()));
    ASSERT_EQ(lseek(env_fd_, 0, SEEK_SET), 0);
  }
  void TearDown() override {
    if (env_fd_ >= 0) {
      close(env_fd_);
    }
  }

  TempDir dir_;
  run::testing::StrayChildren strays_;
  int env_fd_ = -1;
};

TEST_F(SupervisorTest, RecordsBothStreamsInTheOrderTheyWereWritten) {
  // Each line is written once the one before it is in the log, so the order is known.
  const std::string script =
      "w() { until grep -q \"$1\" '" + Log() +
      "' 2>/dev/null; do :; done; }\n"
      "echo one; w ' O one$'; echo two >&2; w ' E two$'; echo three; w ' O three$';"
      "printf 'no newline' >&2";
  int status = Wait(StartShell(script));
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(CapturedStreams(Log()), "O one\nE two\nO three\nE no newline\n");
  EXPECT_EQ(ExitHow(), "exited 0\n");
  std::vector<run::testing::CapturedLine> lines = ReadCaptured(Log());
  for (std::size_t i = 1; i < lines.size(); ++i) {
    EXPECT_LE(lines[i - 1].timestamp, lines[i].timestamp);
  }
}

TEST_F(SupervisorTest, RecordsEveryLineOfALongOutput) {
  int status = Wait(
      StartShell("i=0; while [ $i -lt 3000 ]; do echo line $i; echo err $i >&2; i=$((i+1)); done"));
  ASSERT_TRUE(WIFEXITED(status)) << status;
  std::string expected_out;
  std::string expected_err;
  for (int i = 0; i < 3000; ++i) {
    expected_out += "line " + std::to_string(i) + "\n";
    expected_err += "err " + std::to_string(i) + "\n";
  }
  EXPECT_EQ(CapturedText(Log(), 'O'), expected_out);
  EXPECT_EQ(CapturedText(Log(), 'E'), expected_err);
}

TEST_F(SupervisorTest, AppendsToTheLogOfAnEarlierRun) {
  ASSERT_EQ(Wait(StartShell("echo first")), 0);
  ASSERT_EQ(Wait(StartShell("echo second")), 0);
  EXPECT_EQ(CapturedText(Log()), "first\nsecond\n");
}

struct EndCase {
  std::string name;
  std::string script;
  bool signaled;
  int number;  // exit code or signal
  std::string exit_file;
};

class SupervisorEndTest : public SupervisorTest, public ::testing::WithParamInterface<EndCase> {};

TEST_P(SupervisorEndTest, EndsAsTheTrainerDidAndSaysSoInTheExitFile) {
  const SystemClock clock;
  const WallTime before = clock.Now();
  int status = Wait(StartShell(GetParam().script));
  const WallTime after = clock.Now();
  ASSERT_NE(status, -1);
  if (GetParam().signaled) {
    ASSERT_TRUE(WIFSIGNALED(status)) << status;
    EXPECT_EQ(WTERMSIG(status), GetParam().number);
    EXPECT_FALSE(WCOREDUMP(status));
  } else {
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), GetParam().number);
  }
  EXPECT_EQ(ExitHow(), GetParam().exit_file);
  EXPECT_FALSE(fs::exists(Exit() + ".tmp"));
  // And when: while it ran (issue #31: the server may not be running to notice).
  const std::optional<ExitStatus> recorded = ReadExitStatus(Exit());
  ASSERT_TRUE(recorded.has_value() && recorded->ended.has_value()) << ReadFile(Exit());
  EXPECT_GE(*recorded->ended, before);
  EXPECT_LE(*recorded->ended, after);
}

INSTANTIATE_TEST_SUITE_P(
    Table, SupervisorEndTest,
    ::testing::Values(EndCase{"Success", "exit 0", false, 0, "exited 0\n"},
                      EndCase{"Failure", "exit 3", false, 3, "exited 3\n"},
                      EndCase{"Exit255", "exit 255", false, 255, "exited 255\n"},
                      EndCase{"Sigterm", "kill -TERM $$", true, SIGTERM, "signaled 15\n"},
                      EndCase{"Sigint", "kill -INT $$", true, SIGINT, "signaled 2\n"},
                      EndCase{"Sigkill", "kill -KILL $$", true, SIGKILL, "signaled 9\n"},
                      EndCase{"Segfault", "kill -SEGV $$", true, SIGSEGV, "signaled 11\n"},
                      EndCase{"Abort", "kill -ABRT $$", true, SIGABRT, "signaled 6\n"},
                      EndCase{"Sigusr1", "kill -USR1 $$", true, SIGUSR1, "signaled 10\n"}),
    [](const auto& tc) { return tc.param.name; });

struct ExecFailureCase {
  std::string name;
  std::string program;  // under the temp dir
  int error;
};

class SupervisorExecFailureTest : public SupervisorTest,
                                  public ::testing::WithParamInterface<ExecFailureCase> {};

TEST_P(SupervisorExecFailureTest, RecordsWhyAndExits127) {
  fs::create_directories(dir_.path() / "bin" / "dir");
  std::ofstream(dir_.File("bin/data")) << "#!/bin/sh\n";
  const std::string program = dir_.File(GetParam().program);
  int status = Wait(Start({program, "--flag"}));
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 127);
  EXPECT_EQ(ExitHow(), "exited 127\n");
  EXPECT_EQ(CapturedStreams(Log()), "E trainyard-replica: cannot execute " + program + ": " +
                                        std::strerror(GetParam().error) + "\n");
}

INSTANTIATE_TEST_SUITE_P(Table, SupervisorExecFailureTest,
                         ::testing::Values(ExecFailureCase{"Missing", "bin/nope", ENOENT},
                                           ExecFailureCase{"NotExecutable", "bin/data", EACCES},
                                           ExecFailureCase{"Directory", "bin/dir", EACCES}),
                         [](const auto& tc) { return tc.param.name; });

// `--user` (serve --run-as), with `nobody` (65534:65534 on Debian): as root the trainer runs with
// those ids and no supplementary groups, while the supervisor still writes the log and the exit
// file in directories only root may enter; otherwise the switch fails and says why.
TEST_F(SupervisorTest, RunsTheTrainerAsTheGivenUser) {
  int status = Wait(Start({"/bin/sh", "-c", "echo $(id -u):$(id -g):$(id -G)"}, "65534:65534"));
  ASSERT_TRUE(WIFEXITED(status)) << status;
  if (geteuid() != 0) {
    EXPECT_EQ(WEXITSTATUS(status), 127);
    EXPECT_EQ(CapturedStreams(Log()),
              "E trainyard-replica: cannot run /bin/sh as user 65534:65534: " +
                  std::string(std::strerror(EPERM)) + "\n");
    return;
  }
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(CapturedStreams(Log()), "O 65534:65534:65534\n");
  EXPECT_EQ(ExitHow(), "exited 0\n");
}

// Issue #31: with a view (--hide, --bind, --ro-bind, --private) the trainer, run as `nobody`,
// sees of the hidden directory only what is bound, can write only the writable part, gets empty
// private directories of its own, and cannot reach the hidden files through its working
// directory either. Paths are under this test's temp dir, itself under the private /tmp: what is
// bound shows through it.
TEST_F(SupervisorTest, TheTrainerSeesOnlyItsView) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "a mount namespace needs root";
  }
  const std::string data = dir_.File("data");
  for (const char* dir : {"/own/work", "/shared", "/other"}) {
    fs::create_directories(data + dir);
  }
  std::ofstream(data + "/other/secret") << "secret\n";
  std::ofstream(data + "/shared/entry") << "entry\n";
  fs::permissions(data, fs::perms::all, fs::perm_options::add);
  fs::permissions(data + "/own/work", fs::perms::all, fs::perm_options::add);
  fs::permissions(data + "/shared", fs::perms::all, fs::perm_options::add);
  fs::create_symlink(data + "/other", data + "/link");
  const FileView view{.hidden = data,
                      .writable = {data + "/own/work", data + "/link", dir_.File("work")},
                      .readable = {data + "/shared"},
                      .private_dirs = {"/tmp", "/dev/shm"}};
  const std::string script =
      "cd " + data + "/own/work; ls " + data +
      " | tr '\\n' ' '; echo\n"
      "cat " +
      data +
      "/other/secret ../../other/secret 2>&1 | sed 's/.*: //'\n"
      "touch " +
      data +
      "/shared/x 2>&1 | sed 's/.*: //'\n"
      "touch " +
      data +
      "/new 2>&1 | sed 's/.*: //'\n"
      "touch mine && echo wrote\n"
      "ls -A /dev/shm | wc -l; ls -ld /dev/shm | cut -d' ' -f1,3\n"
      "[ $(ls /proc | grep -c -x '[0-9]*') -lt 10 ] && echo only its own processes\n";
  int status = Wait(Start({"/bin/sh", "-c", script}, "65534:65534", view));
  ASSERT_TRUE(WIFEXITED(status)) << status << CapturedStreams(Log());
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(CapturedText(Log(), 'O'),
            "own shared \n"  // no `other`, no `link`
            "No such file or directory\nNo such file or directory\n"
            "Read-only file system\nRead-only file system\n"  // shared/x, then the hidden dir
            "wrote\n"
            "0\ndrwx------ nobody\n"  // /dev/shm: empty, the trainer's
            "only its own processes\n");
  EXPECT_TRUE(fs::exists(data + "/own/work/mine"));
  EXPECT_FALSE(fs::exists(data + "/shared/x"));
  EXPECT_EQ(ExitHow(), "exited 0\n");
}

// Issue #31: with a private root, the private directories are the job's, shared by its replicas
// (a rendezvous file in /tmp, NCCL's segments in /dev/shm) and kept from everybody else: the root
// is root's alone, each directory in it sticky and open to the job's user.
TEST_F(SupervisorTest, ReplicasOfAJobShareTheirPrivateDirectories) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "a mount namespace needs root";
  }
  const std::string root = dir_.File("private/p/j1");
  const FileView view{.hidden = dir_.File("data"),
                      .writable = {dir_.File("work")},
                      .private_dirs = {"/tmp", "/dev/shm"},
                      .private_root = root};
  ASSERT_EQ(Wait(Start({"/bin/sh", "-c", "echo from-0 > /tmp/rendezvous; touch /dev/shm/segment"},
                       "65534:65534", view)),
            0)
      << CapturedStreams(Log());
  ASSERT_EQ(Wait(Start({"/bin/sh", "-c", "cat /tmp/rendezvous; ls /dev/shm"}, "65534:65534", view)),
            0)
      << CapturedStreams(Log());
  EXPECT_EQ(CapturedText(Log(), 'O'), "from-0\nsegment\n");
  struct stat made {};
  ASSERT_EQ(stat(root.c_str(), &made), 0);
  EXPECT_EQ(made.st_mode & 07777, 0700U);
  ASSERT_EQ(stat((root + "/tmp").c_str(), &made), 0);
  EXPECT_EQ(made.st_mode & 07777, 01777U);
  EXPECT_TRUE(fs::exists(root + "/dev_shm/segment"));
  EXPECT_TRUE(ReleaseIpcNamespace(root).ok());
}

// Issue #31: a job's System V IPC objects are its own. A segment one replica makes is there for
// the job's next replica (the namespace is mounted under the private root), and neither another
// job nor the machine sees it; once the job's namespace is released, its private root can go.
TEST_F(SupervisorTest, ReplicasOfAJobShareAnIpcNamespaceOfTheirOwn) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "a mount namespace needs root";
  }
  auto view_of = [&](const std::string& job) {
    return FileView{.hidden = dir_.File("data"),
                    .writable = {dir_.File("work")},
                    .private_dirs = {"/tmp"},
                    .private_root = dir_.File("private/p/" + job)};
  };
  const std::string keys = "ipcs -m | awk '$1 ~ /^0x/ { print $1 }'";
  ASSERT_EQ(Wait(Start({"/bin/sh", "-c", "ipcmk -M 4096 > /dev/null && " + keys}, "65534:65534",
                       view_of("j1"))),
            0)
      << CapturedStreams(Log());
  const std::string made = CapturedText(Log(), 'O');
  ASSERT_TRUE(made.starts_with("0x")) << made;
  ASSERT_EQ(Wait(Start({"/bin/sh", "-c", keys}, "65534:65534", view_of("j1"))), 0)
      << CapturedStreams(Log());
  ASSERT_EQ(Wait(Start({"/bin/sh", "-c", "echo other job: $(" + keys + ")"}, "65534:65534",
                       view_of("j2"))),
            0)
      << CapturedStreams(Log());
  EXPECT_EQ(CapturedText(Log(), 'O'), made + made + "other job:\n");
  // The machine's segments (/proc/sysvipc/shm gives keys as signed decimals) do not include the
  // job's.
  const std::string key = std::to_string(
      static_cast<std::int32_t>(static_cast<std::uint32_t>(std::stoul(made, nullptr, 16))));
  std::istringstream machine(ReadFile("/proc/sysvipc/shm"));
  for (std::string line; std::getline(machine, line);) {
    std::istringstream fields(line);
    std::string first;
    fields >> first;
    EXPECT_NE(first, key) << line;
  }
  for (const char* job : {"j1", "j2"}) {
    const std::string root = dir_.File(std::string("private/p/") + job);
    EXPECT_TRUE(ReleaseIpcNamespace(root).ok());
    std::error_code error;
    fs::remove_all(root, error);
    EXPECT_FALSE(error) << error.message();
  }
}

// A held supervisor (--held, ProcessSpec::held) starts the trainer only once released; stopped
// first, it ends as killed by the stop signal and the trainer never ran.
TEST_F(SupervisorTest, AHeldTrainerStartsOnlyOnceReleased) {
  Fifo ready(dir_.File("ready"));
  int pid = Start({"/bin/sh", "-c", "echo ready > " + ready.path() + "; echo ran"}, "", {}, true);
  // Once it waits for its release (in rt_sigtimedwait, x86-64's 128), it has started nothing.
  const std::string waiting = "/proc/" + std::to_string(pid) + "/syscall";
  ASSERT_TRUE(::trainyard::testing::WaitUntil([&] { return ReadFile(waiting).starts_with("128 "); },
                                              std::chrono::milliseconds(kDeadlineMs)))
      << ReadFile(waiting);
  EXPECT_EQ(ReadFile("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children"),
            "");
  ASSERT_EQ(kill(pid, kHoldRelease), 0);
  EXPECT_EQ(ready.Read(), "ready");
  ASSERT_EQ(Wait(pid), 0);
  EXPECT_EQ(CapturedText(Log(), 'O'), "ran\n");
  EXPECT_EQ(ExitHow(), "exited 0\n");
}

TEST_F(SupervisorTest, AHeldTrainerStoppedBeforeItsReleaseNeverRuns) {
  int pid = Start({"/bin/sh", "-c", "echo ran"}, "", {}, true);
  ASSERT_EQ(kill(-pid, SIGTERM), 0);
  int status = Wait(pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_EQ(ExitHow(), "signaled 15\n");
  EXPECT_EQ(CapturedText(Log(), 'O'), "");
}

TEST_F(SupervisorTest, AMalformedUserRunsNothing) {
  int status = Wait(Start({"/bin/sh", "-c", "echo ran"}, "nobody"));
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 127);
  EXPECT_EQ(CapturedStreams(Log()), "E trainyard-replica: --user nobody is not UID:GID\n");
}

TEST_F(SupervisorTest, GrandchildKeepingThePipesOpenDoesNotKeepItRunning) {
  const std::string sleep = UniqueSleep();
  int status = Wait(StartShell("sleep " + sleep + " & echo started; echo done"));
  for (int pid : PidsWithArgument(sleep)) {  // without a PID namespace (not root) it outlives it
    kill(pid, SIGKILL);
  }
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_EQ(CapturedText(Log(), 'O'), "started\ndone\n");
  EXPECT_EQ(ExitHow(), "exited 0\n");
}

// Issue #31: with a view (the job's, under --run-as), the trainer runs in a PID namespace of its
// own, so what it started ends with it: a `setsid` child and a double fork included, which its
// process group does not hold.
TEST_F(SupervisorTest, NoProcessTheTrainerStartedOutlivesIt) {
  if (geteuid() != 0) {
    GTEST_SKIP() << "a PID namespace needs root";
  }
  const std::string sleep = UniqueSleep();
  const FileView view{.hidden = dir_.File("data"), .writable = {dir_.File("work")}};
  const std::string script = "setsid sleep " + sleep + " </dev/null >/dev/null 2>&1 & (sleep " +
                             sleep +
                             " </dev/null >/dev/null 2>&1 &); while [ $(cat /proc/[0-9]*/cmdline "
                             "2>/dev/null | tr '\\0' '\\n' | grep -c -x " +
                             sleep + ") -lt 2 ]; do :; done; echo both; exit 3";
  int status = Wait(Start({"/bin/sh", "-c", script}, "65534:65534", view));
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 3);
  EXPECT_EQ(CapturedText(Log(), 'O'), "both\n");
  EXPECT_TRUE(NoSleeperWithin(sleep)) << "survivors: " << PidsWithArgument(sleep).size();
}

class SupervisorGroupSignalTest : public SupervisorTest,
                                  public ::testing::WithParamInterface<int> {};

TEST_P(SupervisorGroupSignalTest, ReachesTheTrainerWhichDecidesTheEnd) {
  const int signal = GetParam();
  Fifo ready(dir_.File("ready"));
  int pid = StartShell("echo ready > " + ready.path() + "; exec sleep 1000");
  ASSERT_EQ(ready.Read(), "ready");
  ASSERT_EQ(kill(-pid, signal), 0);
  int status = Wait(pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), signal);
  EXPECT_EQ(ExitHow(), "signaled " + std::to_string(signal) + "\n");
}

INSTANTIATE_TEST_SUITE_P(Signals, SupervisorGroupSignalTest,
                         ::testing::Values(SIGTERM, SIGINT, SIGHUP),
                         [](const auto& tc) { return std::string(sigabbrev_np(tc.param)); });

TEST_P(SupervisorGroupSignalTest, ReachesTheTrainerWhileItIsBeingStarted) {
  const int signal = GetParam();
  int pid = StartShell("exec sleep 1000");
  ASSERT_EQ(kill(-pid, signal), 0);  // at once: the trainer may not have been forked yet
  int status = Wait(pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << status;
  EXPECT_EQ(WTERMSIG(status), signal);
  EXPECT_EQ(ExitHow(), "signaled " + std::to_string(signal) + "\n");
}

TEST_F(SupervisorTest, TrainerHandlingSigtermDecidesTheExit) {
  Fifo ready(dir_.File("ready"));
  int pid = StartShell("trap 'echo stopping; exit 4' TERM; echo ready > " + ready.path() +
                       "; while :; do sleep 1; done");
  ASSERT_EQ(ready.Read(), "ready");
  ASSERT_EQ(kill(-pid, SIGTERM), 0);
  int status = Wait(pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 4);
  EXPECT_EQ(CapturedText(Log(), 'O'), "stopping\n");
  EXPECT_EQ(ExitHow(), "exited 4\n");
}

TEST_F(SupervisorTest, KillingTheSupervisorAloneKillsTheTrainer) {
  const std::string sleep = UniqueSleep();
  int pid = StartShell("exec sleep " + sleep);
  const std::vector<int> trainers = AwaitSleepers(sleep, 1);
  ASSERT_EQ(trainers.size(), 1U);
  const int trainer = trainers[0];
  int trainer_fd = OpenPidFd(trainer);
  ASSERT_GE(trainer_fd, 0);
  ASSERT_EQ(kill(pid, SIGKILL), 0);  // the supervisor only, not its group
  int status = Wait(pid);
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  pollfd ended{.fd = trainer_fd, .events = POLLIN};
  EXPECT_EQ(poll(&ended, 1, kDeadlineMs), 1) << "trainer " << trainer << " outlived it";
  close(trainer_fd);
  EXPECT_FALSE(fs::exists(Exit()));
}

TEST_F(SupervisorTest, TrainerGetsACleanProcess) {
  int leaky = open("/dev/null", O_RDONLY);  // deliberately without O_CLOEXEC
  ASSERT_GE(leaky, 3);
  struct sigaction ignore {};
  ignore.sa_handler = SIG_IGN;
  struct sigaction old_term {};
  ASSERT_EQ(sigaction(SIGTERM, &ignore, &old_term), 0);
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  sigset_t old_mask;
  ASSERT_EQ(sigprocmask(SIG_BLOCK, &usr1, &old_mask), 0);
  ASSERT_EQ(setenv("TY_SUPERVISOR_TEST", "inherited", 1), 0);
  int pid = StartShell("for n in 0 1 2 3 4 5 6 7 8 9 " + std::to_string(leaky) +
                       "; do [ -e /proc/$$/fd/$n ] && echo open $n; done\n"
                       "readlink /proc/$$/fd/0\n"
                       "[ \"$(cut -d' ' -f5 /proc/$$/stat)\" = \"$PPID\" ] && echo group of $PPID\n"
                       "pwd -P; echo $TY_SUPERVISOR_TEST\n"
                       "exec grep -E '^Sig(Blk|Ign)' /proc/self/status");
  unsetenv("TY_SUPERVISOR_TEST");
  sigprocmask(SIG_SETMASK, &old_mask, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  close(leaky);
  ASSERT_EQ(Wait(pid), 0);
  EXPECT_EQ(CapturedText(Log(), 'O'),
            "open 0\nopen 1\nopen 2\n/dev/null\ngroup of " + std::to_string(pid) + "\n" +
                fs::canonical(dir_.File("work")).string() +
                "\ninherited\nSigBlk:\t0000000000000000\nSigIgn:\t0000000000000000\n");
  EXPECT_EQ(CapturedText(Log(), 'E'), "");
}

// Issue #31: the job's environment (an LD_PRELOAD among it) reaches the trainer, exactly as given,
// and not the supervisor, whose own (here this test's) the trainer does not get; the
// supervisor's stdin, which held it, is /dev/null by the time the trainer runs.
TEST_F(SupervisorTest, TrainerGetsTheEnvironmentFromEnvFdAndOnlyThat) {
  ASSERT_EQ(setenv("TY_SUPERVISOR_OWN", "supervisor", 1), 0);
  GiveEnvironment({{"PATH", "/usr/bin:/bin"},
                   {"LD_PRELOAD", "/nonexistent/preload.so"},
                   {"TY_MARKER", "a=b c"}});
  int pid = StartShell(
      "tr '\\0' '\\n' < /proc/$$/environ; echo ---\n"
      "tr '\\0' '\\n' < /proc/$PPID/environ | grep -c -e TY_MARKER -e LD_PRELOAD\n"
      "readlink /proc/$PPID/fd/0");
  unsetenv("TY_SUPERVISOR_OWN");
  ASSERT_EQ(Wait(pid), 0);
  EXPECT_EQ(CapturedText(Log(), 'O'),
            "PATH=/usr/bin:/bin\nLD_PRELOAD=/nonexistent/preload.so\nTY_MARKER=a=b c\n---\n0\n"
            "/dev/null\n");
}

TEST_F(SupervisorTest, WrongUsageRunsNothing) {
  std::vector<std::string> command = {kSupervisor, "--log", Log(), "/bin/true"};
  std::vector<char*> pointers = Pointers(command);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, kSupervisor, &actions, nullptr, pointers.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);
  int status = Wait(pid);
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_FALSE(fs::exists(Log()));
}

}  // namespace
}  // namespace trainyard::run::local
