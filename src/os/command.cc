#include "os/command.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <string_view>

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "os/spawn.h"
#include "os/unique_fd.h"

namespace trainyard::os {
namespace {

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

  // Reads what is there now; closes the descriptor at EOF (or on an error). True when it read.
  bool Drain() {
    std::array<char, 65536> buffer{};
    bool read_some = false;
    while (fd.valid()) {
      const ssize_t n = read(fd.get(), buffer.data(), buffer.size());
      if (n > 0) {
        read_some = true;
        const std::size_t room = max - std::min(max, text.size());
        text.append(buffer.data(), std::min(room, static_cast<std::size_t>(n)));
        Report(false);
      } else if (n < 0 && errno == EINTR) {
        continue;
      } else if (n < 0 && errno == EAGAIN) {
        break;
      } else {
        fd.reset();
        Report(true);
      }
    }
    return read_some;
  }
};

Status NonBlocking(const UniqueFd& fd) {
  if (fd.valid() && fcntl(fd.get(), F_SETFL, fcntl(fd.get(), F_GETFL) | O_NONBLOCK) != 0) {
    return Status::Internal("Cannot make a pipe non-blocking: " + Errno(errno));
  }
  return {};
}

void Arm(const UniqueFd& timer, std::int64_t ms) {
  itimerspec when{};
  when.it_value.tv_sec = static_cast<time_t>(ms / 1000);
  when.it_value.tv_nsec = static_cast<long>(ms % 1000) * 1'000'000;  // NOLINT(google-runtime-int)
  timerfd_settime(timer.get(), 0, &when, nullptr);
}

}  // namespace

Result<CommandResult> RunCommand(const std::vector<std::string>& argv,
                                 const CommandOptions& options, int* start_errno) {
  if (argv.empty()) {
    return Status::Internal("RunCommand: empty argv");
  }
  const bool timed = options.timeout.count() > 0;
  UniqueFd timer(timed ? timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC) : -1);
  if (timed && !timer.valid()) {
    return Status::Internal("Cannot create a timer: " + Errno(errno));
  }
  using Stderr = CommandOptions::Stderr;
  Result<Child> child =
      Spawn(SpawnOptions{.argv = argv,
                         .env = MergeEnvironment(CurrentEnvironment(), options.env),
                         .working_dir = options.working_dir,
                         .in = options.input.empty() ? Stdio::Null() : Stdio::Pipe(),
                         .out = Stdio::Pipe(),
                         .err = options.err == Stderr::kCapture ? Stdio::Pipe()
                                : options.err == Stderr::kMerge ? Stdio::SameAsOut()
                                                                : Stdio::Null(),
                         .new_process_group = options.new_process_group,
                         .default_all_signals = true},
            start_errno);
  if (!child.ok()) {
    return child.status();
  }
  const int pid = child->pid;
  const int group = options.new_process_group ? -pid : pid;  // what a timeout kills
  auto abandon = [&](const std::string& what) {
    const std::string why = Errno(errno);
    kill(group, SIGKILL);
    Wait(pid);
    return Status::Internal(fmt::format("Cannot {} {}: {}", what, argv[0], why));
  };
  const UniqueFd pidfd(OpenPidFd(pid));
  if (!pidfd.valid()) {
    return abandon("watch");
  }
  for (const UniqueFd* fd : {&child->in, &child->out, &child->err}) {
    if (!NonBlocking(*fd).ok()) {
      return abandon("set up the pipes of");
    }
  }
  const std::int64_t ms = std::max<std::int64_t>(options.timeout.count(), 1);
  if (timed) {
    Arm(timer, ms);
  }

  SigpipeBlock sigpipe;
  UniqueFd stdin_fd = std::move(child->in);
  std::string_view pending_input = options.input;
  std::array<Sink, 2> sinks = {
      Sink{std::move(child->out), {}, options.max_output, &options.on_line},
      Sink{std::move(child->err), {}, options.max_output, &options.on_line}};
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
      return abandon("wait for");
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
      if (fds[i].revents != 0 && sinks.at(static_cast<std::size_t>(i - kStdout)).Drain() &&
          options.idle_timeout && !timed_out) {
        Arm(timer, ms);  // it printed: the silence starts again
      }
    }
    if (fds[kTimer].revents != 0) {
      timed_out = true;
      kill(group, SIGKILL);  // the pid is not reaped yet, so the group is its
    }
    exited = fds[kPid].revents != 0;
  }
  const ExitStatus status = Wait(pid);
  if (timed_out) {
    return Status::DeadlineExceeded(fmt::format("{} did not finish within {} s{}", argv[0],
                                                static_cast<double>(ms) / 1000.0,
                                                options.idle_timeout ? " of silence" : ""));
  }
  // Everything the command wrote is in the pipes now. A process it left behind may hold them
  // open: what is there is read, the rest is not waited for.
  for (Sink& sink : sinks) {
    sink.Drain();
  }
  return CommandResult{
      .status = status, .out = std::move(sinks[0].text), .err = std::move(sinks[1].text)};
}

}  // namespace trainyard::os
