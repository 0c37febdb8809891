#include "cli/local_cluster.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <ctime>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <pthread.h>
#include <sys/wait.h>

#include "base/clock.h"

namespace trainyard::cli {
namespace {

// How long one wait for a signal lasts at most: exits are also polled, so a SIGCHLD that went
// to another thread costs at most this much.
constexpr std::chrono::milliseconds kPoll{50};

// Blocks `signals` in this thread while it lives, so that they can be waited for; on the way out
// consumes those of them that arrived meanwhile (unless they were blocked before) and restores
// the previous mask.
class SignalBlock {
 public:
  explicit SignalBlock(std::vector<int> signals) : signals_(std::move(signals)) {
    sigemptyset(&set_);
    for (const int signal : signals_) {
      sigaddset(&set_, signal);
    }
    pthread_sigmask(SIG_BLOCK, &set_, &previous_);
  }
  ~SignalBlock() {
    sigset_t arrived;
    sigemptyset(&arrived);
    for (const int signal : signals_) {
      if (sigismember(&previous_, signal) == 0) {
        sigaddset(&arrived, signal);
      }
    }
    const timespec now{};
    while (sigtimedwait(&arrived, nullptr, &now) > 0) {
    }
    pthread_sigmask(SIG_SETMASK, &previous_, nullptr);
  }
  SignalBlock(const SignalBlock&) = delete;
  SignalBlock& operator=(const SignalBlock&) = delete;

  // Waits up to `timeout` for one of the blocked signals; returns it, or 0 when none came.
  int Wait(std::chrono::milliseconds timeout) const {
    const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    const timespec limit{
        .tv_sec = static_cast<time_t>(seconds.count()),
        .tv_nsec = static_cast<long>(std::chrono::nanoseconds(timeout - seconds).count())};
    const int signal = sigtimedwait(&set_, nullptr, &limit);
    return signal > 0 ? signal : 0;
  }

 private:
  std::vector<int> signals_;
  sigset_t set_{};
  sigset_t previous_{};
};

// Whether child `pid` has ended, without reaping it: an unreaped child keeps its pid, and so its
// process group id, from being reused.
bool HasExited(int pid) {
  siginfo_t info{};
  while (waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
    if (errno != EINTR) {
      return true;  // not our child any more: nothing left to wait for
    }
  }
  return info.si_pid == pid;
}

void Reap(int pid) {
  while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
}

// SIGTERM to each group, up to `grace` for the leaders to exit, SIGKILL to every group (what a
// leader started may outlive it), then reap the leaders.
void StopGroups(const std::vector<int>& leaders, std::chrono::milliseconds grace,
                const SignalBlock& signals) {
  for (const int pid : leaders) {
    kill(-pid, SIGTERM);
  }
  const SystemClock clock;
  const MonoTime deadline = clock.Monotonic() + grace;
  while (!std::ranges::all_of(leaders, HasExited)) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock.Monotonic());
    if (left.count() <= 0) {
      break;
    }
    signals.Wait(std::min(kPoll, left));  // SIGINT/SIGTERM now change nothing
  }
  for (const int pid : leaders) {
    kill(-pid, SIGKILL);
  }
  for (const int pid : leaders) {
    Reap(pid);
  }
}

}  // namespace

Result<int> RunLocalCluster(const std::vector<ChildSpec>& others, ChildSpec primary,
                            std::chrono::milliseconds stop_grace) {
  const SignalBlock signals({SIGINT, SIGTERM, SIGCHLD});
  std::vector<int> started;
  for (ChildSpec spec : others) {
    spec.background = true;
    Result<int> pid = StartChild(spec);
    if (!pid.ok()) {
      StopGroups(started, stop_grace, signals);
      return pid.status();
    }
    started.push_back(*pid);
  }
  primary.background = false;
  Result<int> pid = StartChild(primary);
  if (!pid.ok()) {
    StopGroups(started, stop_grace, signals);
    return pid.status();
  }
  int status = 0;
  while (true) {
    const pid_t done = waitpid(*pid, &status, WNOHANG);
    if (done == *pid) {
      break;
    }
    if (done < 0 && errno != EINTR) {
      const int error = errno;
      StopGroups(started, stop_grace, signals);
      return Status::Internal(
          fmt::format("Cannot wait for [{}]: {}", primary.argv.front(), std::strerror(error)));
    }
    const int signal = signals.Wait(kPoll);
    if (signal == SIGINT || signal == SIGTERM) {
      kill(*pid, SIGTERM);
    }
  }
  StopGroups(started, stop_grace, signals);
  return ExitCodeOf(status);
}

}  // namespace trainyard::cli
