// `trainyard-replica`, the small program each replica runs under, so that a replica outlives the
// server that started it and its output keeps being recorded meanwhile. `ProcessLauncher` starts
//
//   trainyard-replica --log LOG --exit EXIT --env-fd 0 -- PROGRAM ARGS...
//
// as the leader of the replica's process group (PROGRAM is already a path), with the trainer's
// environment to read on stdin (a memfd), stdout and stderr on /dev/null, the stop signals
// (`kStopSignals`) blocked and `PATH=kSupervisorPath` as its whole environment. The supervisor:
// - reads the trainer's environment from `--env-fd` to its end (then has /dev/null there), so
//   that the job's environment reaches the trainer only, never the supervisor (which may run as
//   root); without `--env-fd`, the trainer gets the supervisor's own environment;
// - runs PROGRAM in that same process group (a signal to the group reaches both), with the
//   supervisor's working directory, that environment, stdin from /dev/null, stdout and stderr to
//   pipes, no other descriptor, every signal at its default action and none blocked, and SIGKILL
//   as its parent-death signal (a trainer never outlives its supervisor);
// - is not stopped by the stop signals itself (it keeps them blocked): the trainer decides how to
//   end, and the supervisor follows it;
// - appends each line the trainer writes as a record to LOG (logs/capture.h) until the trainer
//   exits, then what the pipes already hold (without waiting for a grandchild that keeps them
//   open), ends partial lines, and writes EXIT atomically: "exited N\n" or "signaled S\n", then
//   when the trainer ended (run/exit_file.h; read by `run::ReadExitStatus`);
// - ends as the trainer did: exit status N, or killed by signal S (without a core dump);
// - with `--container NAME`, PROGRAM is a container runtime's client: its exit status 128 + S is
//   recorded as "signaled S" (ContainerExitStatus), so a container killed by a signal is
//   restarted as a process would be; and once the client has ended the supervisor removes the
//   container (`PROGRAM rm -f --time 0 --ignore NAME`, podman's command line, with the client's
//   environment) before it writes
//   the exit file, so none is left behind, even one whose client was stopped while starting it.
// - with a view (`--hide`, `--bind`, ...: run/local/sandbox.h), as root, for a host process,
//   runs PROGRAM in PID and mount namespaces of its own under an init
//   (run/local/replica_init.h): PROGRAM then leads a process group of its own, the init passes
//   the stop signals on to it, and when PROGRAM ends every process it left ends too. A view it
//   cannot make runs nothing.
// - with `--held`, starts PROGRAM only once it gets kHoldRelease (the launcher's Release, after
//   the server recorded its pid); a stop signal first ends it as killed by that signal,
//   PROGRAM never run;
// When PROGRAM cannot be executed it records "trainyard-replica: cannot execute PROGRAM: <why>"
// on stderr and ends with status 127, as a shell does.
#pragma once

#include "base/clock.h"
#include "run/launcher.h"
#include "run/local/supervisor_command.h"

namespace trainyard::run::local {

// Runs the replica to its end and writes the exit file; returns how the replica ended.
ExitStatus Supervise(const SupervisorArgs& args, const Clock& clock);

// Ends this process as `status` says: exits with its code, or resets its signal to the default
// action and raises it (exit status 128 + signal if that does not end the process).
[[noreturn]] void EndLike(const ExitStatus& status);

}  // namespace trainyard::run::local
