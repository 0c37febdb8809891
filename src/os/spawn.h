// The one way trainyard starts a process: posix_spawn, or fork + exec where an option needs it
// (another user, a step of the caller's in the child, death with the calling thread). Every
// spawner goes through here: os/command.h (a command whose output is collected), the job
// launcher (run/local/spawn.h: a replica's supervisor, pip), the CLI's children.
//
// The child runs without a shell, argv[0] looked up on its environment's PATH (os/environment.h);
// it gets only its stdin, stdout and stderr (every descriptor from 3 up is closed in it, whatever
// its close-on-exec flag), the signal mask the options give (none blocked by default), and
// SIGPIPE (or every signal) at its default action. Thread-safe: plain functions of their
// arguments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/exit_status.h"
#include "base/status.h"
#include "os/environment.h"
#include "os/unique_fd.h"

namespace trainyard::os {

// Where one of the child's stdin, stdout and stderr comes from.
struct Stdio {
  enum class Mode {
    kInherit,    // this process's
    kNull,       // /dev/null
    kPipe,       // a new pipe; this process's end comes back in `Child`
    kFd,         // `fd`, which the caller keeps and closes
    kSameAsOut,  // stderr only: a duplicate of the child's stdout (one open file)
  };
  Mode mode = Mode::kInherit;
  int fd = -1;

  static Stdio Inherit() { return {}; }
  static Stdio Null() { return {.mode = Mode::kNull}; }
  static Stdio Pipe() { return {.mode = Mode::kPipe}; }
  static Stdio Fd(int fd) { return {.mode = Mode::kFd, .fd = fd}; }
  static Stdio SameAsOut() { return {.mode = Mode::kSameAsOut}; }
};

// A step the forked child takes after its process group and stdio are set up and before it
// changes directory, switches user and execs (the job launcher's sandbox: namespaces, mounts).
// Async-signal-safe; returns 0, or the errno that fails the start. It may fork and never return
// in the parent (it must then _exit).
struct ChildStep {
  int (*run)(void* context) noexcept = nullptr;
  void* context = nullptr;
};

struct UserIds {
  unsigned uid = 0;
  unsigned gid = 0;  // the primary group; supplementary groups are dropped
};

struct SpawnOptions {
  std::vector<std::string> argv;  // argv[0]: a program on `env`'s PATH, or a path with a '/'
  Environment env;                // the child's whole environment
  std::string working_dir;        // must exist; empty: this process's
  Stdio in = Stdio::Inherit();
  Stdio out = Stdio::Inherit();
  Stdio err = Stdio::Inherit();
  bool new_process_group = false;    // led by the child (pgid = its pid), to signal it whole
  std::vector<int> blocked_signals;  // blocked in the child from its start; all others are not
  bool default_all_signals = false;  // every signal at its default action, not only SIGPIPE
  // Set, or any of the two below: the child is forked. It runs with these ids and no
  // supplementary groups.
  std::optional<UserIds> user;
  // Killed (SIGKILL) when the calling thread ends, which must then wait for it.
  bool die_with_thread = false;
  ChildStep step;
};

// A started child: its pid, which the caller must reap (`Wait`), and this process's ends of the
// pipes the options asked for (close-on-exec, blocking).
struct Child {
  int pid = -1;
  UniqueFd in;   // write end of the child's stdin
  UniqueFd out;  // read end of its stdout
  UniqueFd err;  // read end of its stderr
};

// Starts `options`. FAILED_PRECONDITION "Cannot run <argv[0]>: <why>" when the program cannot be
// run (os/environment.h's FindProgram, or the exec's error); INTERNAL "Cannot start <argv[0]>:
// <why>" when the system refuses. `start_errno`, when given, gets the errno of what failed to
// run the program (for callers that word that error their own way), 0 otherwise.
Result<Child> Spawn(const SpawnOptions& options, int* start_errno = nullptr);

// Waits for the child `pid` to end and reaps it.
ExitStatus Wait(int pid);

// How a `waitpid` status ended the process.
ExitStatus FromWaitStatus(int wait_status);

// The exit code a shell would show: the code, or 128 + the signal.
int ShellExitCode(const ExitStatus& status);

// A pidfd for `pid` (always close-on-exec), or -1 with `errno` set. glibc 2.36's <sys/pidfd.h>
// lacks extern "C", so C++ calls the system call through this.
int OpenPidFd(int pid);

}  // namespace trainyard::os
