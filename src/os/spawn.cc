#include "os/spawn.h"

#include <array>
#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "os/child_setup.h"

namespace trainyard::os {
namespace {

class FileActions {
 public:
  FileActions() { posix_spawn_file_actions_init(&actions_); }
  FileActions(const FileActions&) = delete;
  FileActions& operator=(const FileActions&) = delete;
  ~FileActions() { posix_spawn_file_actions_destroy(&actions_); }
  posix_spawn_file_actions_t* get() { return &actions_; }

 private:
  posix_spawn_file_actions_t actions_;
};

class SpawnAttr {
 public:
  SpawnAttr() { posix_spawnattr_init(&attr_); }
  SpawnAttr(const SpawnAttr&) = delete;
  SpawnAttr& operator=(const SpawnAttr&) = delete;
  ~SpawnAttr() { posix_spawnattr_destroy(&attr_); }
  posix_spawnattr_t* get() { return &attr_; }

 private:
  posix_spawnattr_t attr_;
};

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) {
    out.push_back(s.data());
  }
  out.push_back(nullptr);
  return out;
}

// The child's three descriptors, and the ones this process keeps or closes after the start.
struct Plumbing {
  std::array<int, 3> child{-1, -1, -1};  // what becomes its stdin, stdout, stderr (-1: inherit)
  std::array<UniqueFd, 3> owned;         // opened here for the child (/dev/null, pipe ends)
  std::array<UniqueFd, 3> ours;          // this process's pipe ends
};

Status Plumb(const std::array<Stdio, 3>& stdio, Plumbing& plumbing) {
  for (int i = 0; i < 3; ++i) {
    const auto slot = static_cast<std::size_t>(i);
    const Stdio& s = stdio.at(slot);
    switch (s.mode) {
      case Stdio::Mode::kInherit:
        plumbing.child.at(slot) = i;
        break;
      case Stdio::Mode::kNull: {
        plumbing.owned.at(slot).reset(
            open("/dev/null", (i == 0 ? O_RDONLY : O_WRONLY) | O_CLOEXEC));
        if (!plumbing.owned.at(slot).valid()) {
          return Status::Internal("Cannot open /dev/null: " + Errno(errno));
        }
        plumbing.child.at(slot) = plumbing.owned.at(slot).get();
        break;
      }
      case Stdio::Mode::kPipe: {
        std::array<int, 2> ends{};
        if (pipe2(ends.data(), O_CLOEXEC) != 0) {
          return Status::Internal("Cannot create a pipe: " + Errno(errno));
        }
        const bool child_reads = i == 0;
        plumbing.owned.at(slot).reset(child_reads ? ends[0] : ends[1]);
        plumbing.ours.at(slot).reset(child_reads ? ends[1] : ends[0]);
        plumbing.child.at(slot) = plumbing.owned.at(slot).get();
        break;
      }
      case Stdio::Mode::kFd:
        plumbing.child.at(slot) = s.fd;
        break;
      case Stdio::Mode::kSameAsOut:
        plumbing.child.at(slot) = STDOUT_FILENO;  // dup'ed after stdout is in place
        break;
    }
  }
  return {};
}

struct ChildPlan {
  const SpawnOptions* options;
  const char* program;
  char* const* argv;
  char* const* envp;
  std::array<int, 3> stdio;
  sigset_t blocked;
  pid_t parent;
};

// The forked child, from the fork to the program's exec; returns the errno of the step that
// failed (the exec's included). Async-signal-safe.
int BecomeProgram(const ChildPlan& plan) noexcept {
  const SpawnOptions& options = *plan.options;
  if (options.default_all_signals) {
    DefaultAllSignals();
  } else {
    signal(SIGPIPE, SIG_DFL);
  }
  sigprocmask(SIG_SETMASK, &plan.blocked, nullptr);
  if (options.die_with_thread) {
    // A parent already gone is seen by the pid check.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
      return errno;
    }
    if (getppid() != plan.parent) {
      return ESRCH;
    }
  }
  if (options.new_process_group && setpgid(0, 0) != 0) {
    return errno;
  }
  for (int i = 0; i < 3; ++i) {
    const int fd = plan.stdio.at(static_cast<std::size_t>(i));
    if (fd != i && dup2(fd, i) < 0) {
      return errno;
    }
  }
  if (options.step.run != nullptr) {
    if (const int error = options.step.run(options.step.context); error != 0) {
      return error;
    }
  }
  if (!options.working_dir.empty() && chdir(options.working_dir.c_str()) != 0) {
    return errno;
  }
  if (options.user.has_value()) {
    if (const int error = SwitchToUser(options.user->uid, options.user->gid); error != 0) {
      return error;
    }
    if (options.die_with_thread) {
      prctl(PR_SET_PDEATHSIG, SIGKILL);  // after the switch, which clears it
    }
  }
  CloseOthersOnExec();
  execve(plan.program, plan.argv, plan.envp);
  return errno;
}

// posix_spawn cannot change ids or run the caller's step, so such a child is forked. Returns 0
// with `pid` set, or the errno of what failed (an exec error comes back through a close-on-exec
// pipe, and the child is reaped).
int Fork(const ChildPlan& plan, pid_t& pid) {
  std::array<int, 2> ends{};
  if (pipe2(ends.data(), O_CLOEXEC) != 0) {
    return errno;
  }
  UniqueFd error_read(ends[0]);
  UniqueFd error_write(ends[1]);
  pid = fork();
  if (pid < 0) {
    return errno;
  }
  if (pid == 0) {
    const int error = BecomeProgram(plan);
    [[maybe_unused]] ssize_t wrote = write(error_write.get(), &error, sizeof(error));
    _exit(127);
  }
  error_write.reset();
  int error = 0;
  ssize_t got = 0;
  do {
    got = read(error_read.get(), &error, sizeof(error));
  } while (got < 0 && errno == EINTR);
  if (got > 0) {
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    return error;
  }
  return 0;
}

int PosixSpawn(const ChildPlan& plan, pid_t& pid) {
  const SpawnOptions& options = *plan.options;
  FileActions actions;
  for (int i = 0; i < 3; ++i) {
    const int fd = plan.stdio.at(static_cast<std::size_t>(i));
    if (fd != i) {
      posix_spawn_file_actions_adddup2(actions.get(), fd, i);
    }
  }
  if (!options.working_dir.empty()) {
    posix_spawn_file_actions_addchdir_np(actions.get(), options.working_dir.c_str());
  }
  posix_spawn_file_actions_addclosefrom_np(actions.get(), STDERR_FILENO + 1);

  SpawnAttr attr;
  sigset_t defaults;
  if (options.default_all_signals) {
    sigfillset(&defaults);
  } else {
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGPIPE);
  }
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (options.new_process_group) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(attr.get(), 0);
  }
  posix_spawnattr_setflags(attr.get(), flags);
  posix_spawnattr_setsigmask(attr.get(), &plan.blocked);
  posix_spawnattr_setsigdefault(attr.get(), &defaults);
  return posix_spawn(&pid, plan.program, actions.get(), attr.get(), plan.argv, plan.envp);
}

}  // namespace

Result<Child> Spawn(const SpawnOptions& options, int* start_errno) {
  if (start_errno != nullptr) {
    *start_errno = 0;
  }
  if (options.argv.empty()) {
    return Status::Internal("Spawn: empty argv");
  }
  const std::string& name = options.argv[0];
  Result<std::string> program = FindProgram(name, EnvValue(options.env, "PATH", kDefaultPath),
                                            options.working_dir, start_errno);
  if (!program.ok()) {
    return program.status();
  }
  Plumbing plumbing;
  TY_RETURN_IF_ERROR(Plumb({options.in, options.out, options.err}, plumbing));
  std::vector<std::string> args = options.argv;
  std::vector<char*> argv = Pointers(args);
  std::vector<std::string> env_strings;
  env_strings.reserve(options.env.size());
  for (const auto& [key, value] : options.env) {
    env_strings.push_back(fmt::format("{}={}", key, value));
  }
  std::vector<char*> envp = Pointers(env_strings);
  ChildPlan plan{.options = &options,
                 .program = program->c_str(),
                 .argv = argv.data(),
                 .envp = envp.data(),
                 .stdio = plumbing.child,
                 .blocked = {},
                 .parent = getpid()};
  sigemptyset(&plan.blocked);
  for (int signal : options.blocked_signals) {
    sigaddset(&plan.blocked, signal);
  }
  const bool fork =
      options.user.has_value() || options.die_with_thread || options.step.run != nullptr;
  pid_t pid = 0;
  const int rc = fork ? Fork(plan, pid) : PosixSpawn(plan, pid);
  if (start_errno != nullptr) {
    *start_errno = rc;
  }
  if (rc == ENOENT || rc == EACCES || rc == ENOEXEC || rc == ENOTDIR || rc == ELOOP ||
      rc == EISDIR) {
    return Status::FailedPrecondition(fmt::format("Cannot run {}: {}", name, Errno(rc)));
  }
  if (rc != 0) {
    return Status::Internal(fmt::format("Cannot start {}: {}", name, Errno(rc)));
  }
  return Child{.pid = static_cast<int>(pid),
               .in = std::move(plumbing.ours[0]),
               .out = std::move(plumbing.ours[1]),
               .err = std::move(plumbing.ours[2])};
}

ExitStatus FromWaitStatus(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    return ExitStatus{.signaled = true, .signal = WTERMSIG(wait_status)};
  }
  return ExitStatus{.code = WEXITSTATUS(wait_status)};
}

ExitStatus Wait(int pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return FromWaitStatus(status);
}

int ShellExitCode(const ExitStatus& status) {
  return status.signaled ? 128 + status.signal : status.code;
}

int OpenPidFd(int pid) {
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

}  // namespace trainyard::os
