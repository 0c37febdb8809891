#include "run/local/supervisor.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <limits>
#include <optional>
#include <string_view>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/status.h"
#include "logs/capture.h"
#include "os/child_setup.h"
#include "os/file.h"
#include "os/no_follow.h"
#include "os/unique_fd.h"
#include "run/exit_file.h"
#include "run/local/credentials.h"
#include "run/local/replica_init.h"
#include "run/local/sandbox.h"

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace trainyard::run::local {
namespace {

constexpr int kCannotExecute = 127;  // as a shell reports a command it cannot run
constexpr std::size_t kReadBytes = std::size_t{64} * 1024;

// The trainer, started: its pid (or its namespace's init's, which ends with it), a pidfd for
// it, the read ends of its stdout and stderr, and where the init reports how it ended.
struct Trainer {
  int pid = -1;
  os::UniqueFd pidfd;
  std::array<os::UniqueFd, 2> pipes;  // [0] stdout, [1] stderr
  os::UniqueFd init_report;           // valid with a namespace (replica_init.h)
};

// A PID namespace of the trainer's own, with its init (replica_init.h), and its view of files.
struct Namespace {
  PreparedView* view = nullptr;  // null: the supervisor's
  std::string working_dir;
};

constexpr std::array<logs::Stream, 2> kStreams = {logs::Stream::kStdout, logs::Stream::kStderr};

// Descriptors 0-2 are open, so that no pipe created later lands on one of them.
void OpenStandardDescriptors() {
  for (int fd = 0; fd <= STDERR_FILENO; ++fd) {
    if (fcntl(fd, F_GETFD) < 0) {
      [[maybe_unused]] int opened = open("/dev/null", O_RDWR);  // the lowest free one: `fd`
    }
  }
}

void SetDisposition(int signal, void (*handler)(int)) {
  struct sigaction action {};
  action.sa_handler = handler;
  sigaction(signal, &action, nullptr);
}

// Why the child could not become the trainer, sent through the error pipe: the stage that failed
// (0: the exec, 1: switching to the replica's user, kSandboxStage: its namespace) and the errno.
using ExecError = InitFailure;
constexpr int kSwitchingStage = 1;

// The child's side of the fork: never returns. A failure goes to `error_fd` as an ExecError.
[[noreturn]] void ExecTrainer(pid_t parent, int stdin_fd, int stdout_fd, int stderr_fd,
                              int error_fd, char* const* argv, char* const* envp,
                              const std::optional<RunAs>& user) {
  ExecError failure;
  if (user.has_value()) {  // first: a change of ids clears the parent-death signal
    failure.error = os::SwitchToUser(user->uid, user->gid);
    failure.stage = failure.error != 0 ? kSwitchingStage : 0;
  }
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
    _exit(kCannotExecute);  // the supervisor is gone already: so is the replica
  }
  if (failure.stage == 0) {
    if (dup2(stdin_fd, STDIN_FILENO) < 0 || dup2(stdout_fd, STDOUT_FILENO) < 0 ||
        dup2(stderr_fd, STDERR_FILENO) < 0) {
      failure.error = errno;
    } else {
      os::DefaultAllSignals();
      sigset_t none;  // a stop signal pending since the fork is delivered here
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      os::CloseOthersOnExec();
      execve(argv[0], argv, envp);
      failure.error = errno;
    }
  }
  [[maybe_unused]] ssize_t wrote = write(error_fd, &failure, sizeof(failure));
  _exit(kCannotExecute);
}

// A stop signal sent to the group before the fork is pending here only (a child starts with
// none pending): it goes on to the trainer, which has it blocked until just before its exec.
void ForwardPendingStops(pid_t trainer) {
  sigset_t pending;
  sigpending(&pending);
  for (int signal : kStopSignals) {
    if (sigismember(&pending, signal) == 1) {
      sigset_t only;
      sigemptyset(&only);
      sigaddset(&only, signal);
      const timespec now{};
      sigtimedwait(&only, nullptr, &now);  // consumed: forwarded once
      kill(trainer, signal);
    }
  }
}

// Starts the trainer with the environment `envp`; the error names the program and why it cannot
// be executed.
Result<Trainer> StartTrainer(const std::vector<std::string>& args, char* const* envp,
                             const std::optional<RunAs>& user, const std::optional<Namespace>& ns) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& arg : args) {
    argv.push_back(const_cast<char*>(arg.c_str()));  // NOLINT: execv's signature
  }
  argv.push_back(nullptr);

  os::UniqueFd stdin_fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  std::array<std::array<int, 2>, 4> pipes{};  // stdout, stderr, exec error, the init's report
  for (auto& ends : pipes) {
    if (pipe2(ends.data(), O_CLOEXEC) != 0) {
      return Status::Internal("cannot create a pipe: " + Errno(errno));
    }
  }
  std::array<os::UniqueFd, 2> out_read = {os::UniqueFd(pipes[0][0]), os::UniqueFd(pipes[1][0])};
  std::array<os::UniqueFd, 2> out_write = {os::UniqueFd(pipes[0][1]), os::UniqueFd(pipes[1][1])};
  os::UniqueFd error_read(pipes[2][0]);
  os::UniqueFd error_write(pipes[2][1]);
  os::UniqueFd report_read(pipes[3][0]);
  os::UniqueFd report_write(pipes[3][1]);
  if (!stdin_fd.valid()) {
    return Status::Internal("cannot open /dev/null: " + Errno(errno));
  }

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    return Status::Internal("cannot start " + args[0] + ": " + Errno(errno));
  }
  if (pid == 0 && ns.has_value()) {
    RunReplicaInit(InitSetup{.view = ns->view,
                             .working_dir = ns->working_dir,
                             .error_fd = error_write.get(),
                             .status_fd = report_write.get(),
                             .start_trainer = [&] {
                               ExecTrainer(1, stdin_fd.get(), out_write[0].get(),
                                           out_write[1].get(), error_write.get(), argv.data(), envp,
                                           user);
                             }});
  }
  if (pid == 0) {
    ExecTrainer(parent, stdin_fd.get(), out_write[0].get(), out_write[1].get(), error_write.get(),
                argv.data(), envp, user);
  }
  for (os::UniqueFd& end : out_write) {
    end.reset();
  }
  error_write.reset();
  report_write.reset();
  ExecError failure;
  ssize_t got = 0;
  do {
    got = read(error_read.get(), &failure, sizeof(failure));
  } while (got < 0 && errno == EINTR);
  if (got > 0) {  // the exec failed; the child has exited
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    if (failure.stage == kSwitchingStage) {
      return Status::FailedPrecondition("cannot run " + args[0] + " as user " +
                                        UserIds(user->uid, user->gid) + ": " +
                                        Errno(failure.error));
    }
    if (failure.stage == kSandboxStage) {
      return Status::FailedPrecondition("cannot set up the replica's namespace for " + args[0] +
                                        ": " + Errno(failure.error));
    }
    return Status::FailedPrecondition("cannot execute " + args[0] + ": " + Errno(failure.error));
  }
  ForwardPendingStops(pid);
  Trainer trainer;
  trainer.pid = pid;
  if (ns.has_value()) {
    trainer.init_report = std::move(report_read);
  }
  trainer.pidfd.reset(static_cast<int>(syscall(SYS_pidfd_open, pid, 0)));
  for (std::size_t i = 0; i < out_read.size(); ++i) {
    fcntl(out_read[i].get(), F_SETFL, O_NONBLOCK);  // the read end only: the trainer's blocks
    trainer.pipes[i] = std::move(out_read[i]);
  }
  return trainer;
}

// `<client> rm -f --time 0 --ignore NAME` (podman's command line), waited for, its output
// discarded: the container goes whatever became of it, also one whose client was stopped
// before it started the container (left "created", its runtime waiting for a start).
// It runs with the client's environment, `envp` (where the client finds its storage).
void RemoveContainer(const std::string& client, const std::string& name, char* const* envp) {
  const std::array<std::string, 7> words = {client, "rm", "-f", "--time", "0", "--ignore", name};
  std::array<char*, words.size() + 1> argv{};
  for (std::size_t i = 0; i < words.size(); ++i) {
    argv.at(i) = const_cast<char*>(words.at(i).c_str());  // NOLINT: execv's signature
  }
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_RDWR);
    for (int fd = 0; fd <= STDERR_FILENO; ++fd) {
      dup2(null, fd);
    }
    os::CloseOthersOnExec();
    execve(argv[0], argv.data(), envp);
    _exit(kCannotExecute);
  }
  if (pid > 0) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
  }
}

// Records what one read(2) of at most `limit` bytes gives from `stream`'s pipe. Returns the bytes
// read: 0 when none were there, -1 at the pipe's end (or an error), when the pipe has been closed
// and the stream's partial line recorded.
ssize_t PumpOnce(Trainer& trainer, std::size_t stream, logs::RecordWriter& writer,
                 std::vector<char>& buffer, std::size_t limit) {
  os::UniqueFd& pipe = trainer.pipes[stream];
  ssize_t got = read(pipe.get(), buffer.data(), std::min(limit, buffer.size()));
  if (got > 0) {
    // A write failure (a full disk) loses these lines; the trainer must go on all the same.
    (void)writer.Feed(kStreams[stream], std::string_view(buffer.data(), got));
    return got;
  }
  if (got < 0 && (errno == EINTR || errno == EAGAIN)) {
    return 0;
  }
  (void)writer.Close(kStreams[stream]);
  pipe.reset();
  return -1;
}

// Records the trainer's output until it exits.
void PumpUntilExit(Trainer& trainer, logs::RecordWriter& writer, std::vector<char>& buffer) {
  std::array<pollfd, 3> fds = {pollfd{.fd = trainer.pipes[0].get(), .events = POLLIN},
                               pollfd{.fd = trainer.pipes[1].get(), .events = POLLIN},
                               pollfd{.fd = trainer.pidfd.get(), .events = POLLIN}};
  // Without a pidfd (never expected), the pipes' ends stand for the exit.
  while (fds[2].fd >= 0 || fds[0].fd >= 0 || fds[1].fd >= 0) {
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      return;
    }
    for (std::size_t i = 0; i < trainer.pipes.size(); ++i) {
      if (fds[i].fd >= 0 && fds[i].revents != 0 &&
          PumpOnce(trainer, i, writer, buffer, buffer.size()) < 0) {
        fds[i].fd = -1;
      }
    }
    if (fds[2].revents != 0) {
      return;
    }
  }
}

// After the exit: what the pipes hold now, and no more (a grandchild may keep them open and
// write on), then the streams' partial lines.
void Drain(Trainer& trainer, logs::RecordWriter& writer, std::vector<char>& buffer) {
  for (std::size_t i = 0; i < trainer.pipes.size(); ++i) {
    int owed = 0;
    if (trainer.pipes[i].valid() && ioctl(trainer.pipes[i].get(), FIONREAD, &owed) != 0) {
      owed = 0;
    }
    while (owed > 0) {
      ssize_t got = PumpOnce(trainer, i, writer, buffer, static_cast<std::size_t>(owed));
      if (got <= 0) {
        break;
      }
      owed -= static_cast<int>(got);
    }
    (void)writer.Close(kStreams[i]);
    trainer.pipes[i].reset();
  }
}

// The trainer's environment from `--env-fd` (supervisor_command.h): `fd` read to its end, then
// closed (0-2: /dev/null in its place).
Result<std::vector<std::string>> ReadTrainerEnvironment(int fd) {
  std::string text;
  const int err = os::ReadAtMost(fd, std::numeric_limits<std::size_t>::max(), text);
  if (fd <= STDERR_FILENO) {
    os::UniqueFd null(open("/dev/null", O_RDWR | O_CLOEXEC));
    dup2(null.get(), fd);
  } else {
    close(fd);
  }
  if (err != 0) {
    return Status::Internal("cannot read the trainer's environment: " + Errno(err));
  }
  return DecodeEnvironment(text);
}

ExitStatus Reap(int pid) {
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED) != 0) {
    if (errno != EINTR) {
      return ExitStatus{.code = kCannotExecute};
    }
  }
  if (info.si_code == CLD_EXITED) {
    return ExitStatus{.code = info.si_status};
  }
  return ExitStatus{.signaled = true, .signal = info.si_status};
}

// Writes `status` and when it came, `ended` (run/exit_file.h), through a new temporary file
// renamed over `path` (os/no_follow.h), so that a reader sees the whole text or no file, and a
// link a job planted at either name is never written through.
void WriteExitFile(const std::string& path, const ExitStatus& status, WallTime ended) {
  const std::string text = ExitFileText(status, ended);
  if (!os::ReplaceFileNoFollow(path, text).ok()) {
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
    (void)os::ReplaceFileNoFollow(path, text);  // else the launcher reports the replica as killed
  }
}

// The trainer's own PID namespace, with a view of the files (the job's, under `serve --run-as`),
// as root, for a host process (a container has the runtime's). This process's next child is then
// the namespace's init. Without a view the trainer runs as the supervisor's child, as it always
// did: the pids it sees and reports are the machine's. A view it cannot make runs nothing (the
// replica would see everything).
Result<std::optional<Namespace>> ChooseNamespace(const SupervisorArgs& args,
                                                 const std::optional<RunAs>& user,
                                                 std::optional<PreparedView>& view) {
  if (args.view == FileView{}) {
    return std::optional<Namespace>();
  }
  if (!args.container.empty() || geteuid() != 0) {
    return Status::FailedPrecondition(
        "a view of the files (--hide, --bind) needs a root supervisor and a host process");
  }
  if (unshare(CLONE_NEWPID) != 0) {
    return Status::FailedPrecondition("cannot make the replica's PID namespace: " + Errno(errno));
  }
  std::error_code error;
  Namespace ns{.working_dir = std::filesystem::current_path(error).string()};
  if (error) {
    return Status::Internal("cannot read the working directory: " + error.message());
  }
  view.emplace(args.view, user);
  ns.view = &*view;
  return std::optional<Namespace>(std::move(ns));
}

// A held supervisor's wait (`--held`): 0 once released (kHoldRelease), or the stop signal that
// came first. Both are blocked already.
int AwaitRelease() {
  sigset_t waited;
  sigemptyset(&waited);
  sigaddset(&waited, kHoldRelease);
  for (int signal : kStopSignals) {
    sigaddset(&waited, signal);
  }
  for (;;) {
    const int signal = sigwaitinfo(&waited, nullptr);
    if (signal >= 0) {
      return signal == kHoldRelease ? 0 : signal;
    }
    if (errno != EINTR) {
      return 0;
    }
  }
}

}  // namespace

ExitStatus Supervise(const SupervisorArgs& args, const Clock& clock) {
  // First: until it is read, the environment's descriptor may be one of 0-2.
  std::optional<Result<std::vector<std::string>>> trainer_env;
  if (args.env_fd >= 0) {
    trainer_env = ReadTrainerEnvironment(args.env_fd);
  }
  OpenStandardDescriptors();
  sigset_t stop;
  sigemptyset(&stop);
  for (int signal : kStopSignals) {
    sigaddset(&stop, signal);
  }
  sigaddset(&stop, kHoldRelease);  // never acted on but while held: a late one stays pending
  sigprocmask(SIG_BLOCK, &stop, nullptr);
  Result<logs::RecordWriter> writer = logs::RecordWriter::Open(args.log_path, clock);
  if (!writer.ok()) {  // nowhere to record the output: run nothing
    const ExitStatus failed{.code = kCannotExecute};
    WriteExitFile(args.exit_path, failed, clock.Now());
    return failed;
  }
  std::optional<RunAs> user;
  if (!args.user.empty()) {
    user = ParseUserIds(args.user);
  }
  std::vector<std::string> env_entries;
  if (trainer_env.has_value() && trainer_env->ok()) {
    env_entries = std::move(**trainer_env);
  }
  std::vector<char*> envp;  // the trainer's: the one read, else the supervisor's own
  envp.reserve(env_entries.size() + 1);
  for (std::string& entry : env_entries) {
    envp.push_back(entry.data());
  }
  if (!trainer_env.has_value()) {
    for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
      envp.push_back(*entry);
    }
  }
  envp.push_back(nullptr);
  Status cannot_start;
  if (trainer_env.has_value() && !trainer_env->ok()) {
    cannot_start = trainer_env->status();
  } else if (!args.user.empty() && !user.has_value()) {
    cannot_start = Status::InvalidArgument("--user " + args.user + " is not UID:GID");
  }
  std::optional<PreparedView> view;
  std::optional<Namespace> ns;
  if (cannot_start.ok()) {
    Result<std::optional<Namespace>> chosen = ChooseNamespace(args, user, view);
    if (chosen.ok()) {
      ns = std::move(*chosen);
    } else {
      cannot_start = chosen.status();
    }
  }
  if (cannot_start.ok() && args.held) {
    if (const int stopped = AwaitRelease(); stopped != 0) {  // stopped before it started
      const ExitStatus status{.signaled = true, .signal = stopped};
      WriteExitFile(args.exit_path, status, clock.Now());
      return status;
    }
  }
  Result<Trainer> trainer = cannot_start.ok() ? StartTrainer(args.argv, envp.data(), user, ns)
                                              : Result<Trainer>(std::move(cannot_start));
  if (!trainer.ok()) {
    (void)writer->WriteLine(logs::Stream::kStderr,
                            std::string(kSupervisorName) + ": " + trainer.status().message());
    const ExitStatus failed{.code = kCannotExecute};
    WriteExitFile(args.exit_path, failed, clock.Now());
    return failed;
  }
  std::vector<char> buffer(kReadBytes);
  PumpUntilExit(*trainer, *writer, buffer);
  ExitStatus status = Reap(trainer->pid);
  if (trainer->init_report.valid()) {
    status = ReadInitReport(trainer->init_report.get()).value_or(status);
  }
  const WallTime ended = clock.Now();  // before the container's removal and the drain
  if (!args.container.empty()) {
    if (!status.signaled) {
      status = ContainerExitStatus(status.code);
    }
    RemoveContainer(args.argv[0], args.container, envp.data());
  }
  Drain(*trainer, *writer, buffer);
  WriteExitFile(args.exit_path, status, ended);
  return status;
}

void EndLike(const ExitStatus& status) {
  if (status.signaled) {
    const rlimit no_core{};  // the trainer's crash is the trainer's, not the supervisor's
    setrlimit(RLIMIT_CORE, &no_core);
    SetDisposition(status.signal, SIG_DFL);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, status.signal);
    sigprocmask(SIG_UNBLOCK, &only, nullptr);
    raise(status.signal);
    _exit(128 + status.signal);  // a signal whose default action is not to end the process
  }
  _exit(status.code);
}

}  // namespace trainyard::run::local
