// The first process of a replica's own PID namespace (issue #31 item 3, "every process a job
// starts ends with it"). A supervisor that runs as root (run/local/supervisor.h) puts its trainer
// in a new PID namespace: its child becomes that namespace's init, this code, and the trainer its
// child. When the trainer ends, the init reports how and exits, and the kernel kills every other
// process left in the namespace: `setsid` descendants and double forks included, which a process
// group does not hold. Internal to run/.
//
// The init, as root:
// - gets SIGKILL when the supervisor dies (so does the namespace);
// - enters the replica's view of the files (run/local/sandbox.h), mounts the namespace's own
//   /proc (the job sees its own processes only, and none of the host's or other jobs') and
//   changes to the working directory inside the view;
// - starts the trainer in a process group of its own (`start_trainer`, which execs or _exits);
// - passes each stop signal (kStopSignals) it gets on to that group: a namespace's init gets no
//   signal it has no handler for, so one sent to the supervisor's group reaches the trainer here;
// - reaps every process the namespace orphans;
// - when the trainer has ended, writes its wait status to `status_fd` (ReadInitReport) and exits.
// A failure to set the namespace up goes to `error_fd` as an `InitFailure`, and the init exits.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "run/launcher.h"
#include "run/local/sandbox.h"

namespace trainyard::run::local {

// What a failed set-up sends through the trainer's error pipe (the supervisor's ExecError layout:
// a stage, then an errno).
struct InitFailure {
  int stage = 0;
  int error = 0;
};
inline constexpr int kSandboxStage = 2;  // 0: the trainer's exec; 1: switching to its user

struct InitSetup {
  PreparedView* view = nullptr;         // null: the files as the supervisor sees them
  std::string working_dir;              // absolute
  int error_fd = -1;                    // the trainer's error pipe, its write end
  int status_fd = -1;                   // where the trainer's end is reported, a pipe's write end
  std::function<void()> start_trainer;  // runs in the forked child; never returns
};

// Runs as the namespace's init, in the supervisor's freshly forked child. Never returns.
[[noreturn]] void RunReplicaInit(const InitSetup& setup);

// How the trainer ended, from the init's report read from `status_fd`'s read end once the init
// has exited; nullopt when it wrote none (it was killed first).
std::optional<ExitStatus> ReadInitReport(int fd);

}  // namespace trainyard::run::local
