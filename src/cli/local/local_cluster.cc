#include "cli/local/local_cluster.h"

#include <algorithm>
#include <csignal>
#include <optional>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "base/clock.h"
#include "os/process.h"

namespace trainyard::cli {
namespace {

// How long one wait for a signal lasts at most: exits are also polled, so a SIGCHLD that went
// to another thread costs at most this much.
constexpr std::chrono::milliseconds kPoll{50};

// SIGTERM to each group, up to `grace` for the leaders to exit, SIGKILL to every group (what a
// leader started may outlive it), then reap the leaders. A group that has already gone is no
// error: there is nothing left to stop.
void StopGroups(const std::vector<os::Child>& leaders, std::chrono::milliseconds grace,
                const os::SignalBlock& signals) {
  for (const os::Child& leader : leaders) {
    (void)os::SignalGroup(leader, SIGTERM);
  }
  const SystemClock clock;
  const MonoTime deadline = clock.Monotonic() + grace;
  while (
      !std::ranges::all_of(leaders, [](const os::Child& leader) { return os::HasEnded(leader); })) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock.Monotonic());
    if (left.count() <= 0) {
      break;
    }
    signals.Wait(std::min(kPoll, left));  // SIGINT/SIGTERM now change nothing
  }
  for (const os::Child& leader : leaders) {
    (void)os::SignalGroup(leader, SIGKILL);
  }
  for (const os::Child& leader : leaders) {
    (void)os::Wait(leader.pid);
  }
}

}  // namespace

Result<int> RunLocalCluster(const std::vector<ChildSpec>& others, ChildSpec primary,
                            std::chrono::milliseconds stop_grace) {
  const os::SignalBlock signals({SIGINT, SIGTERM, SIGCHLD});
  std::vector<os::Child> started;
  for (ChildSpec spec : others) {
    spec.background = true;
    Result<os::Child> child = StartChild(spec);
    if (!child.ok()) {
      StopGroups(started, stop_grace, signals);
      return child.status();
    }
    started.push_back(std::move(*child));
  }
  primary.background = false;
  Result<os::Child> child = StartChild(primary);
  if (!child.ok()) {
    StopGroups(started, stop_grace, signals);
    return child.status();
  }
  while (true) {
    int error = 0;
    Result<std::optional<ExitStatus>> ended = os::TryWait(*child, &error);
    if (!ended.ok()) {
      StopGroups(started, stop_grace, signals);
      return Status::Internal(
          fmt::format("Cannot wait for [{}]: {}", primary.argv.front(), Errno(error)));
    }
    if (ended->has_value()) {
      StopGroups(started, stop_grace, signals);
      return os::ShellExitCode(**ended);
    }
    const int signal = signals.Wait(kPoll);
    if (signal == SIGINT || signal == SIGTERM) {
      (void)os::Signal(*child, SIGTERM);
    }
  }
}

}  // namespace trainyard::cli
