#include "os/process.h"

#include <cerrno>
#include <ctime>
#include <string>
#include <utility>

#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os/io_error.h"

namespace trainyard::os {
namespace {

sigset_t SetOf(std::span<const int> signals) {
  sigset_t set;
  sigemptyset(&set);
  for (const int signal : signals) {
    sigaddset(&set, signal);
  }
  return set;
}

// kill(2) of `pid`, or of the process group `-pid`.
Status SignalPid(int pid, int signal, int* error) {
  if (::kill(pid, signal) != 0) {
    const int err = errno;  // before std::to_string, which may change it
    return IoError(pid < 0 ? "signal process group" : "signal process",
                   std::to_string(pid < 0 ? -pid : pid), err, error);
  }
  NoError(error);
  return {};
}

}  // namespace

int CurrentPid() {
  return static_cast<int>(::getpid());
}

unsigned EffectiveUid() {
  return static_cast<unsigned>(::geteuid());
}

bool IsTerminal(int fd) {
  return ::isatty(fd) == 1;
}

void BlockSignals(std::span<const int> signals) {
  const sigset_t set = SetOf(signals);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int TakeSignal(std::span<const int> signals, std::chrono::milliseconds timeout) {
  const sigset_t set = SetOf(signals);
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
  const timespec limit{
      .tv_sec = static_cast<time_t>(seconds.count()),
      .tv_nsec = static_cast<long>(std::chrono::nanoseconds(timeout - seconds).count())};
  const int signal = sigtimedwait(&set, nullptr, &limit);
  return signal > 0 ? signal : 0;
}

SignalBlock::SignalBlock(std::vector<int> signals) : signals_(std::move(signals)) {
  const sigset_t set = SetOf(signals_);
  sigset_t previous;
  sigemptyset(&previous);
  pthread_sigmask(SIG_BLOCK, &set, &previous);
  for (const int signal : signals_) {
    if (sigismember(&previous, signal) == 0) {
      newly_blocked_.push_back(signal);
    }
  }
}

SignalBlock::~SignalBlock() {
  while (TakeSignal(newly_blocked_, std::chrono::milliseconds(0)) > 0) {
  }
  const sigset_t set = SetOf(newly_blocked_);
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

Status Signal(const Child& child, int signal, int* error) {
  return SignalPid(child.pid, signal, error);
}

Status SignalGroup(const Child& child, int signal, int* error) {
  return SignalPid(-child.pid, signal, error);
}

bool HasEnded(const Child& child) {
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(child.pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno != EINTR) {
      return true;  // not our child any more: nothing left to wait for
    }
  }
  return info.si_pid == child.pid;
}

Result<std::optional<ExitStatus>> TryWait(const Child& child, int* error) {
  int status = 0;
  pid_t done = 0;
  do {
    done = ::waitpid(child.pid, &status, WNOHANG);
  } while (done < 0 && errno == EINTR);
  if (done < 0) {
    const int err = errno;  // before std::to_string, which may change it
    return IoError("wait for process", std::to_string(child.pid), err, error);
  }
  NoError(error);
  if (done == 0) {
    return std::optional<ExitStatus>();
  }
  return std::optional<ExitStatus>(FromWaitStatus(status));
}

}  // namespace trainyard::os
