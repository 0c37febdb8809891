// The `Launcher` for this machine: replicas are real child processes (see run/local/spawn.h for
// what a child inherits and what it does not).
//
// Exits are watched without reaping anybody else's children: each child gets a pidfd, and one
// monitor thread polls them (plus an eventfd that announces new children), reaps a child whose
// pidfd is readable with waitid(P_PIDFD) and calls the exit callback, outside any lock of the
// launcher. The callback may therefore call `Start` or `SignalGroup`. A child that exits at once
// may be reported before `Start` has returned its pid to the caller, so a caller must tolerate
// an exit for a pid it has not recorded yet (e.g. by handling both on one strand).
//
// The destructor stops the monitor thread but leaves the children running (and unreported):
// replicas may outlive the server; stopping them is the caller's business (`SignalGroup`).
// Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "run/launcher.h"
#include "run/local/spawn.h"

namespace trainyard::run::local {

class ProcessLauncher final : public Launcher {
 public:
  // Children get this process's environment, as it is now, under each spec's `env`.
  explicit ProcessLauncher(ExitCallback on_exit);
  // Children get `base_env` (not this process's environment) under each spec's `env`.
  ProcessLauncher(ExitCallback on_exit, Environment base_env);
  ~ProcessLauncher() override;
  ProcessLauncher(const ProcessLauncher&) = delete;
  ProcessLauncher& operator=(const ProcessLauncher&) = delete;

  Result<int> Start(const ProcessSpec& spec) override;
  void SignalGroup(int pid, int signal) override;
  Result<std::vector<int>> FreePorts(int count) override;

 private:
  void Monitor(const std::stop_token& stop);
  void Wake() const;

  const ExitCallback on_exit_;
  const Environment base_env_;
  int wake_fd_ = -1;  // eventfd: a child was added, or the monitor must stop

  std::mutex mu_;
  std::map<int, int> children_;  // pidfd -> pid; guarded by mu_

  std::jthread monitor_;  // last: starts after, and stops before, everything above
};

}  // namespace trainyard::run::local
