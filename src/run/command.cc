#include "run/command.h"

#include <array>
#include <cerrno>
#include <cstring>
#include <string_view>

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/status.h"
#include "base/unique_fd.h"
#include "run/local/spawn.h"

namespace trainyard::run {
namespace {

// A pipe whose ends are close-on-exec (the child gets dup2'd copies); `ours` is made non-blocking.
struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Result<Pipe> MakePipe(bool ours_is_read) {
  std::array<int, 2> fds{};
  if (pipe2(fds.data(), O_CLOEXEC) != 0) {
    return Status::Internal("Cannot create a pipe: " + Errno(errno));
  }
  Pipe pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
  const int ours = ours_is_read ? pipe.read.get() : pipe.write.get();
  if (fcntl(ours, F_SETFL, fcntl(ours, F_GETFL) | O_NONBLOCK) != 0) {
    return Status::Internal("Cannot make a pipe non-blocking: " + Errno(errno));
  }
  return pipe;
}

// Blocks SIGPIPE in the calling thread while it lives, so that writing to a command that closed
// its stdin gives EPIPE instead of killing the process; a SIGPIPE raised meanwhile is consumed.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;
  ~SigpipeBlock() {
    if (raised_ && !was_pending_) {
      const timespec zero{};
      while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  void Raised() { raised_ = true; }

 private:
  sigset_t pipe_{};
  sigset_t old_{};
  bool was_pending_ = false;
  bool raised_ = false;
};

// One output stream of the command: read until EOF, the first `max` bytes kept.
struct Sink {
  UniqueFd fd;
  std::string text;
  std::size_t max = 0;
  const LineCallback* on_line = nullptr;  // each complete line, as it arrives
  std::size_t reported = 0;               // text[0, reported) went to on_line

  void Report(bool at_end) {
    if (on_line == nullptr || !*on_line) {
      return;
    }
    std::size_t end = 0;
    while ((end = text.find('\n', reported)) != std::string::npos) {
      (*on_line)(std::string_view(text).substr(reported, end - reported));
      reported = end + 1;
    }
    if (at_end && reported < text.size()) {
      (*on_line)(std::string_view(text).substr(reported));
      reported = text.size();
    }
  }

  // Reads what is there now; closes the descriptor at EOF (or on an error).
  void Drain() {
    std::array<char, 65536> buffer{};
    while (fd.valid()) {
      const ssize_t n = read(fd.get(), buffer.data(), buffer.size());
      if (n > 0) {
        const std::size_t room = max - std::min(max, text.size());
        text.append(buffer.data(), std::min(room, static_cast<std::size_t>(n)));
        Report(false);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && errno == EAGAIN) {
        return;
      } else {
        fd.reset();
        Report(true);
      }
    }
  }
};

ExitStatus FromWaitStatus(int status) {
  if (WIFSIGNALED(status)) {
    return ExitStatus{.signaled = true, .signal = WTERMSIG(status)};
  }
  return ExitStatus{.code = WEXITSTATUS(status)};
}

// Reaps the child `pid` (a child of this process, exited or killed).
int Reap(int pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

}  // namespace

Result<CommandResult> RunCommand(const std::vector<std::string>& argv, const std::string& input,
                                 std::chrono::milliseconds timeout, std::size_t max_output,
                                 const LineCallback& on_line) {
  if (argv.empty()) {
    return Status::Internal("RunCommand: empty argv");
  }
  Result<Pipe> in = MakePipe(/*ours_is_read=*/false);
  Result<Pipe> out = in.ok() ? MakePipe(true) : in.status();
  Result<Pipe> err = out.ok() ? MakePipe(true) : out.status();
  if (!err.ok()) {
    return err.status();
  }
  UniqueFd timer(timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC));
  if (!timer.valid()) {
    return Status::Internal("Cannot create a timer: " + Errno(errno));
  }

  local::SpawnSpec spec{.argv = argv,
                        .stdin_fd = in->read.get(),
                        .stdout_fd = out->write.get(),
                        .stderr_fd = err->write.get()};
  Result<int> pid = local::SpawnProcess(spec, local::CurrentEnvironment());
  // The child has its copies; ours must go, or the pipes never reach EOF.
  in->read.reset();
  out->write.reset();
  err->write.reset();
  if (!pid.ok()) {
    return pid.status();
  }
  const UniqueFd pidfd(local::OpenPidFd(*pid));
  if (!pidfd.valid()) {
    const std::string why = Errno(errno);
    kill(-*pid, SIGKILL);
    Reap(*pid);
    return Status::Internal(fmt::format("Cannot watch {}: {}", argv[0], why));
  }
  const auto ms = std::max<std::int64_t>(timeout.count(), 1);
  itimerspec when{};
  when.it_value.tv_sec = static_cast<time_t>(ms / 1000);
  when.it_value.tv_nsec = static_cast<long>(ms % 1000) * 1'000'000;  // NOLINT(google-runtime-int)
  timerfd_settime(timer.get(), 0, &when, nullptr);

  SigpipeBlock sigpipe;
  UniqueFd stdin_fd = std::move(in->write);
  std::string_view pending_input = input;
  if (pending_input.empty()) {
    stdin_fd.reset();
  }
  std::array<Sink, 2> sinks = {Sink{std::move(out->read), {}, max_output, &on_line},
                               Sink{std::move(err->read), {}, max_output, &on_line}};
  bool timed_out = false;
  bool exited = false;
  while (!exited) {
    enum { kPid, kTimer, kStdin, kStdout, kStderr };
    std::array<pollfd, 5> fds = {
        pollfd{.fd = pidfd.get(), .events = POLLIN},
        pollfd{.fd = timed_out ? -1 : timer.get(), .events = POLLIN},
        pollfd{.fd = stdin_fd.get(), .events = POLLOUT},
        pollfd{.fd = sinks[0].fd.get(), .events = POLLIN},
        pollfd{.fd = sinks[1].fd.get(), .events = POLLIN},
    };
    if (poll(fds.data(), fds.size(), -1) < 0) {
      if (errno == EINTR) {
        continue;
      }
      const std::string why = Errno(errno);
      kill(-*pid, SIGKILL);
      Reap(*pid);
      return Status::Internal(fmt::format("Cannot wait for {}: {}", argv[0], why));
    }
    if (fds[kStdin].revents != 0) {
      const ssize_t n = write(stdin_fd.get(), pending_input.data(), pending_input.size());
      if (n > 0) {
        pending_input.remove_prefix(static_cast<std::size_t>(n));
      } else if (n < 0 && errno == EPIPE) {
        sigpipe.Raised();  // the command does not read (all of) its input: not an error
      }
      if (pending_input.empty() || (n < 0 && errno != EAGAIN && errno != EINTR)) {
        stdin_fd.reset();  // EOF for the command
      }
    }
    for (int i : {kStdout, kStderr}) {
      if (fds[i].revents != 0) {
        sinks.at(static_cast<std::size_t>(i - kStdout)).Drain();
      }
    }
    if (fds[kTimer].revents != 0) {
      timed_out = true;
      kill(-*pid, SIGKILL);  // its whole group; the pid is not reaped yet, so the group is its
    }
    exited = fds[kPid].revents != 0;
  }
  const int wait_status = Reap(*pid);
  if (timed_out) {
    return Status::DeadlineExceeded(
        fmt::format("{} did not finish within {} s", argv[0], static_cast<double>(ms) / 1000.0));
  }
  // Everything the command wrote is in the pipes now. A process it left behind may hold them
  // open: what is there is read, the rest is not waited for.
  for (Sink& sink : sinks) {
    sink.Drain();
  }
  return CommandResult{.status = FromWaitStatus(wait_status),
                       .out = std::move(sinks[0].text),
                       .err = std::move(sinks[1].text)};
}

}  // namespace trainyard::run
