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
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/file.h"
#include "base/no_follow.h"
#include "base/status.h"
#include "base/unique_fd.h"
#include "logs/capture.h"
#include "run/exit_file.h"
#include "run/local/child_setup.h"
#include "run/local/credentials.h"

extern char** environ;  // NOLINT: POSIX declares it nowhere else

namespace trainyard::run::local {
namespace {

constexpr int kCannotExecute = 127;  // as a shell reports a command it cannot run
constexpr std::size_t kReadBytes = std::size_t{64} * 1024;

// The trainer, started: its pid, a pidfd for it, and the read ends of its stdout and stderr.
struct Trainer {
  int pid = -1;
  UniqueFd pidfd;
  std::array<UniqueFd, 2> pipes;  // [0] stdout, [1] stderr
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

// Why the child could not become the trainer, sent through the error pipe.
struct ExecError {
  int switching = 0;  // 1: switching to the replica's user failed; 0: the exec did
  int error = 0;      // errno
};

// The child's side of the fork: never returns. A failure goes to `error_fd` as an ExecError.
[[noreturn]] void ExecTrainer(pid_t parent, int stdin_fd, int stdout_fd, int stderr_fd,
                              int error_fd, char* const* argv, char* const* envp,
                              const std::optional<RunAs>& user) {
  ExecError failure;
  if (user.has_value()) {  // first: a change of ids clears the parent-death signal
    failure.error = SwitchToUser(user->uid, user->gid);
    failure.switching = failure.error != 0 ? 1 : 0;
  }
  if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) {
    _exit(kCannotExecute);  // the supervisor is gone already: so is the replica
  }
  if (failure.switching == 0) {
    if (dup2(stdin_fd, STDIN_FILENO) < 0 || dup2(stdout_fd, STDOUT_FILENO) < 0 ||
        dup2(stderr_fd, STDERR_FILENO) < 0) {
      failure.error = errno;
    } else {
      DefaultAllSignals();
      sigset_t none;  // a stop signal pending since the fork is delivered here
      sigemptyset(&none);
      sigprocmask(SIG_SETMASK, &none, nullptr);
      CloseOthersOnExec();
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
                             const std::optional<RunAs>& user) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (const std::string& arg : args) {
    argv.push_back(const_cast<char*>(arg.c_str()));  // NOLINT: execv's signature
  }
  argv.push_back(nullptr);

  UniqueFd stdin_fd(open("/dev/null", O_RDONLY | O_CLOEXEC));
  std::array<std::array<int, 2>, 3> pipes{};  // stdout, stderr, exec error
  for (auto& ends : pipes) {
    if (pipe2(ends.data(), O_CLOEXEC) != 0) {
      return Status::Internal("cannot create a pipe: " + Errno(errno));
    }
  }
  std::array<UniqueFd, 2> out_read = {UniqueFd(pipes[0][0]), UniqueFd(pipes[1][0])};
  std::array<UniqueFd, 2> out_write = {UniqueFd(pipes[0][1]), UniqueFd(pipes[1][1])};
  UniqueFd error_read(pipes[2][0]);
  UniqueFd error_write(pipes[2][1]);
  if (!stdin_fd.valid()) {
    return Status::Internal("cannot open /dev/null: " + Errno(errno));
  }

  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) {
    return Status::Internal("cannot start " + args[0] + ": " + Errno(errno));
  }
  if (pid == 0) {
    ExecTrainer(parent, stdin_fd.get(), out_write[0].get(), out_write[1].get(), error_write.get(),
                argv.data(), envp, user);
  }
  for (UniqueFd& end : out_write) {
    end.reset();
  }
  error_write.reset();
  ExecError failure;
  ssize_t got = 0;
  do {
    got = read(error_read.get(), &failure, sizeof(failure));
  } while (got < 0 && errno == EINTR);
  if (got > 0) {  // the exec failed; the child has exited
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    if (failure.switching != 0) {
      return Status::FailedPrecondition("cannot run " + args[0] + " as user " +
                                        UserIds(user->uid, user->gid) + ": " +
                                        Errno(failure.error));
    }
    return Status::FailedPrecondition("cannot execute " + args[0] + ": " + Errno(failure.error));
  }
  ForwardPendingStops(pid);
  Trainer trainer;
  trainer.pid = pid;
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
    CloseOthersOnExec();
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
  UniqueFd& pipe = trainer.pipes[stream];
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
  const int err = ReadAtMost(fd, std::numeric_limits<std::size_t>::max(), text);
  if (fd <= STDERR_FILENO) {
    UniqueFd null(open("/dev/null", O_RDWR | O_CLOEXEC));
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
// renamed over `path` (base/no_follow.h), so that a reader sees the whole text or no file, and a
// link a job planted at either name is never written through.
void WriteExitFile(const std::string& path, const ExitStatus& status, WallTime ended) {
  const std::string text = ExitFileText(status, ended);
  if (!ReplaceFileNoFollow(path, text).ok()) {
    std::error_code ignored;
    std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ignored);
    (void)ReplaceFileNoFollow(path, text);  // else the launcher reports the replica as killed
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
  Result<Trainer> trainer = cannot_start.ok() ? StartTrainer(args.argv, envp.data(), user)
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
