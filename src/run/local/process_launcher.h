// The `Launcher` for this machine: each replica is a child process running the replica
// supervisor, `trainyard-replica --log LOG --exit EXIT -- PROGRAM ARGS...`
// (run/local/supervisor.h), which leads the replica's process group, runs the trainer and records
// its output and its end. See run/local/spawn.h for what the supervisor inherits and what it does
// not; the trainer gets the same working directory. The supervisor's environment is
// `PATH=kSupervisorPath` only: the trainer's (the base environment under the spec's `env`) is
// handed to it on its stdin (`--env-fd 0`), so nothing of a job's reaches the supervisor, which
// may run as root while the trainer runs as `serve --run-as`'s user, in the spec's `view` of the
// files (given to the supervisor as `--hide`/`--bind`: run/local/sandbox.h) when there is a user.
// The program is looked up (`FindProgram`) before anything starts, so a missing one is a
// synchronous FAILED_PRECONDITION.
//
// Exits are watched without reaping anybody else's children: each child gets a pidfd, and one
// monitor thread polls them (plus an eventfd that announces new children), reaps a child whose
// pidfd is readable with waitid(P_PIDFD) (the supervisor ends as its trainer did) and calls the
// exit callback, outside any lock of the launcher. An adopted supervisor (`Adopt`) is not a child:
// its exit is the one its exit file records (killed by SIGKILL when there is none). The callback
// may call `Start`, `SignalGroup` or `Adopt`. A child that exits at once may be reported before
// `Start` has returned its pid to the caller, so a caller must tolerate an exit for a pid it has
// not recorded yet (e.g. by handling both on one strand).
//
// A spec with a `container` runs the container runtime's client command instead (the container's
// environment is the spec's; the client gets the base environment) under the same supervisor,
// with `--container NAME`; stop signals reach the container through the client, and SIGKILL is
// also sent to the container itself (a killed client would leave it running).
//
// The destructor stops the monitor thread but leaves the children running (and unreported):
// replicas outlive the server; a later launcher adopts them. Stopping them is the caller's
// business (`SignalGroup`). Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "run/container_runtime.h"
#include "run/launcher.h"
#include "run/local/spawn.h"
#include "run/run_as.h"

namespace trainyard::run::local {

// `trainyard-replica` in the directory of this process's executable (where the build and the
// install put it next to `trainyard`).
std::string DefaultSupervisorPath();

class ProcessLauncher final : public Launcher {
 public:
  // Replicas run under the supervisor executable `supervisor_path`, and get this process's
  // environment, as it is now, under each spec's `env`.
  explicit ProcessLauncher(ExitCallback on_exit,
                           const std::string& supervisor_path = DefaultSupervisorPath());
  // Replicas get `base_env` (not this process's environment) under each spec's `env`; container
  // specs run through `containers` (not owned; null: they fail with FAILED_PRECONDITION). With a
  // `user`, trainers run with its ids (`trainyard-replica --user`), and so do the processes of
  // containers (the runtime's `--user`); supervisors and container clients keep this process's.
  ProcessLauncher(ExitCallback on_exit, const std::string& supervisor_path, Environment base_env,
                  ContainerRuntime* containers = nullptr, std::optional<RunAs> user = {});
  ~ProcessLauncher() override;
  ProcessLauncher(const ProcessLauncher&) = delete;
  ProcessLauncher& operator=(const ProcessLauncher&) = delete;

  Result<int> Start(const ProcessSpec& spec) override;
  void Release(int pid) override;
  void SignalGroup(int pid, int signal) override;
  // `pid` is adopted when it is a supervisor started with `spec`'s log and exit files (its
  // command line says so), so a pid reused by another process is never taken for the replica.
  // (A supervisor still inside its exec has no command line yet: Adopt is for a later server.)
  Result<bool> Adopt(int pid, const ProcessSpec& spec) override;
  Result<int> FindStarted(const ProcessSpec& spec) override;
  Result<std::vector<int>> FreePorts(int count) override;

 private:
  struct Watched {
    int pid = 0;
    std::string exit_path;  // adopted: where its status is; a child: empty (it is reaped)
  };

  void Watch(int pidfd, Watched watched, const std::string& container);
  void Monitor(const std::stop_token& stop);
  void Wake() const;

  const ExitCallback on_exit_;
  const std::string supervisor_path_;  // absolute
  const Environment base_env_;
  ContainerRuntime* const containers_;
  const std::optional<RunAs> user_;
  int wake_fd_ = -1;  // eventfd: a child was added, or the monitor must stop

  std::mutex mu_;
  std::map<int, Watched> children_;               // by pidfd; guarded by mu_
  std::map<int, std::string> containers_by_pid_;  // guarded by mu_
  // FreePorts' picks. Seeded once: a std::random_device per call costs a CPUID (a VM exit on a
  // virtual machine) and a read of the kernel's pool, per job launched.
  std::mutex random_mu_;
  std::mt19937 random_;  // guarded by random_mu_

  std::jthread monitor_;  // last: starts after, and stops before, everything above
};

}  // namespace trainyard::run::local
