#include "run/local/spawn.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <optional>
#include <system_error>

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;  // NOLINT: POSIX declares it nowhere else

#include "base/status.h"
#include "base/unique_fd.h"
#include "run/local/child_setup.h"
#include "run/local/sandbox.h"

namespace trainyard::run::local {
namespace {

namespace fs = std::filesystem;

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

enum class FileKind { kMissing, kDirectory, kNotExecutable, kExecutable };

FileKind Inspect(const std::string& path) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    return FileKind::kMissing;
  }
  if (S_ISDIR(st.st_mode)) {
    return FileKind::kDirectory;
  }
  if (!S_ISREG(st.st_mode) || access(path.c_str(), X_OK) != 0) {
    return FileKind::kNotExecutable;
  }
  return FileKind::kExecutable;
}

// `path` made absolute against `working_dir` (itself against this process's directory), which is
// where the child resolves it after its chdir.
std::string AgainstWorkingDir(const std::string& path, const std::string& working_dir) {
  fs::path p(path);
  if (p.is_relative() && !working_dir.empty()) {
    p = fs::path(working_dir) / p;
  }
  std::error_code ignored;
  fs::path absolute = fs::absolute(p, ignored);
  return absolute.empty() ? p.string() : absolute.string();
}

Status CreateDirectories(const fs::path& dir) {
  if (dir.empty()) {
    return {};
  }
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return Status::Internal(
        fmt::format("Cannot create directory {}: {}", dir.string(), error.message()));
  }
  return {};
}

// Opens `path` for the child's stdout/stderr (close-on-exec here; the child gets a dup2), never
// through a link as its last component.
Result<int> OpenOutput(const std::string& path) {
  if (path.empty()) {
    int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    return fd >= 0 ? Result<int>(fd) : Status::Internal("Cannot open /dev/null: " + Errno(errno));
  }
  TY_RETURN_IF_ERROR(CreateDirectories(fs::path(path).parent_path()));
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::Internal(fmt::format("Cannot open {}: {}", path, Errno(errno)));
  }
  return fd;
}

std::vector<std::string> EnvStrings(const Environment& env) {
  std::vector<std::string> out;
  out.reserve(env.size());
  for (const auto& [name, value] : env) {
    out.push_back(fmt::format("{}={}", name, value));
  }
  return out;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) {
    out.push_back(s.data());
  }
  out.push_back(nullptr);
  return out;
}

// The end of a child that ran `program` in a PID namespace of its own (ForkAs with a view): it
// waits for the namespace's init, the program, and ends as it did. Async-signal-safe.
[[noreturn]] void EndLikeInit(pid_t init) {
  int status = 0;
  while (waitpid(init, &status, 0) < 0) {
    if (errno != EINTR) {
      _exit(127);
    }
  }
  if (WIFSIGNALED(status)) {
    const int signal = WTERMSIG(status);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, signal);
    sigprocmask(SIG_UNBLOCK, &only, nullptr);
    kill(getpid(), signal);  // every signal is at its default action here
    _exit(128 + signal);
  }
  _exit(WEXITSTATUS(status));
}

// ForkAs's child, from the fork to the program's exec; returns the errno of the step that failed
// (the exec's included). Async-signal-safe.
int BecomeProgram(const RunAs& user, PreparedView* view, pid_t parent, const char* program,
                  char* const* argv, char* const* envp, const std::array<int, 3>& stdio,
                  const std::string& working_dir, const sigset_t& blocked,
                  UniqueFd& error_write) noexcept {
  DefaultAllSignals();  // the server's handlers have no business in this child
  sigprocmask(SIG_SETMASK, &blocked, nullptr);
  if (view != nullptr) {
    // Killed with the process that forked it (the thread, which waits for it to its end): its
    // death ends the program (its parent-death signal), and so the whole namespace. This child
    // stays root, so nothing clears it; a parent already gone is seen by the pid check.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) {
      return errno;
    }
    if (getppid() != parent) {
      return ESRCH;
    }
  }
  if (setpgid(0, 0) != 0 || dup2(stdio[0], STDIN_FILENO) < 0 || dup2(stdio[1], STDOUT_FILENO) < 0 ||
      dup2(stdio[2], STDERR_FILENO) < 0) {
    return errno;
  }
  if (view != nullptr) {
    if (unshare(CLONE_NEWPID) != 0) {
      return errno;
    }
    if (const int error = EnterView(*view); error != 0) {
      return error;
    }
    const pid_t init = fork();
    if (init < 0) {
      return errno;
    }
    if (init > 0) {
      // This process never execs: what it inherited from the server (its listening socket, the
      // package cache's key locks, the databases) would stay open as long as the program runs,
      // past a killed server (a restart could not listen on its port). It needs none of them.
      error_write.reset();  // the program's exec closes the other copy
      CloseAllAbove(STDERR_FILENO);
      EndLikeInit(init);
    }
    if (const int error = MountProc(); error != 0) {
      return error;
    }
  }
  if (!working_dir.empty() && chdir(working_dir.c_str()) != 0) {
    return errno;
  }
  if (const int error = SwitchToUser(user.uid, user.gid); error != 0) {
    return error;
  }
  if (view != nullptr) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);  // after the switch, which clears it
  }
  CloseOthersOnExec();
  execve(program, argv, envp);
  return errno;
}

// posix_spawn cannot change ids, so a child that runs as another user is forked, and does what
// SpawnProcess's attributes and file actions say before it switches and execs. Returns 0 with
// `pid` set, or the errno of what failed (an exec error comes back through a close-on-exec pipe).
// With a `view`, the child enters it (sandbox.h) in new mount and PID namespaces, and forks the
// program as the PID namespace's init: when the program ends, whatever it started ends too, and
// it sees no other process of the machine. The child itself (pid returned) stays outside, waits
// for it and ends as it did; a signal that ends the child ends the namespace (SIGKILL as the
// program's parent-death signal), and the child ends with the calling thread (a killed server:
// the install it started must not run on unseen), so that thread must outlive it (wait for it).
int ForkAs(const RunAs& user, PreparedView* view, const char* program, char* const* argv,
           char* const* envp, const std::array<int, 3>& stdio, const std::string& working_dir,
           const sigset_t& blocked, pid_t& pid) {
  std::array<int, 2> ends{};
  if (pipe2(ends.data(), O_CLOEXEC) != 0) {
    return errno;
  }
  UniqueFd error_read(ends[0]);
  UniqueFd error_write(ends[1]);
  const pid_t parent = getpid();
  pid = fork();
  if (pid < 0) {
    return errno;
  }
  if (pid == 0) {
    const int error = BecomeProgram(user, view, parent, program, argv, envp, stdio, working_dir,
                                    blocked, error_write);
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

}  // namespace

Environment CurrentEnvironment() {
  Environment env;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    auto eq = text.find('=');
    if (eq == std::string_view::npos || eq == 0) {
      continue;
    }
    env.emplace_back(std::string(text.substr(0, eq)), std::string(text.substr(eq + 1)));
  }
  return MergeEnvironment({}, env);  // drops duplicates, keeping the last value
}

Environment MergeEnvironment(Environment base, const Environment& overrides) {
  for (const auto& [name, value] : overrides) {
    auto it = std::find_if(base.begin(), base.end(),
                           [&name = name](const auto& entry) { return entry.first == name; });
    if (it != base.end()) {
      it->second = value;
    } else {
      base.emplace_back(name, value);
    }
  }
  return base;
}

std::string_view EnvValue(const Environment& env, std::string_view name,
                          std::string_view fallback) {
  for (const auto& [key, value] : env) {
    if (key == name) {
      return value;
    }
  }
  return fallback;
}

Result<std::string> FindProgram(const std::string& program, std::string_view path_var,
                                const std::string& working_dir) {
  if (program.empty()) {
    return Status::FailedPrecondition("Cannot run an empty program name");
  }
  if (program.find('/') != std::string::npos) {
    std::string path = AgainstWorkingDir(program, working_dir);
    switch (Inspect(path)) {
      case FileKind::kExecutable:
        return path;
      case FileKind::kMissing:
        return Status::FailedPrecondition(fmt::format("Cannot run {}: no such file", program));
      case FileKind::kDirectory:
        return Status::FailedPrecondition(fmt::format("Cannot run {}: is a directory", program));
      case FileKind::kNotExecutable:
        return Status::FailedPrecondition(fmt::format("Cannot run {}: not executable", program));
    }
  }
  std::string not_executable;  // the first match that cannot be run, as execvp reports EACCES
  size_t start = 0;
  while (start <= path_var.size()) {
    size_t end = path_var.find(':', start);
    if (end == std::string_view::npos) {
      end = path_var.size();
    }
    std::string_view dir = path_var.substr(start, end - start);
    start = end + 1;
    if (dir.empty()) {
      continue;
    }
    std::string candidate = AgainstWorkingDir(std::string(dir) + "/" + program, working_dir);
    FileKind kind = Inspect(candidate);
    if (kind == FileKind::kExecutable) {
      return candidate;
    }
    if (kind == FileKind::kNotExecutable && not_executable.empty()) {
      not_executable = candidate;
    }
  }
  if (!not_executable.empty()) {
    return Status::FailedPrecondition(
        fmt::format("Cannot run {}: {} is not executable", program, not_executable));
  }
  return Status::FailedPrecondition(fmt::format("Cannot run {}: not found on PATH", program));
}

std::string AbsolutePath(const std::string& path) {
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(path, error);
  return error ? path : absolute.string();
}

int OpenPidFd(int pid) {
  return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

Result<int> SpawnProcess(const SpawnSpec& spec, const Environment& base_env) {
  if (spec.argv.empty()) {
    return Status::Internal("SpawnSpec has an empty argv");
  }
  Environment env = MergeEnvironment(base_env, spec.env);
  Result<std::string> program =
      FindProgram(spec.argv[0], EnvValue(env, "PATH", kDefaultPath), spec.working_dir);
  if (!program.ok()) {
    return program.status();
  }
  TY_RETURN_IF_ERROR(CreateDirectories(spec.working_dir));

  UniqueFd stdin_owner(spec.stdin_fd >= 0 ? -1 : open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (spec.stdin_fd < 0 && !stdin_owner.valid()) {
    return Status::Internal("Cannot open /dev/null: " + Errno(errno));
  }
  UniqueFd stdout_owner;
  if (spec.stdout_fd < 0) {
    Result<int> stdout_fd = OpenOutput(spec.stdout_path);
    if (!stdout_fd.ok()) {
      return stdout_fd.status();
    }
    stdout_owner.reset(*stdout_fd);
  }
  // Both paths the same (and no descriptors given): stderr is a duplicate of stdout.
  const bool same_output =
      spec.stdout_fd < 0 && spec.stderr_fd < 0 && spec.stderr_path == spec.stdout_path;
  UniqueFd stderr_owner;
  if (spec.stderr_fd < 0 && !same_output) {
    Result<int> stderr_fd = OpenOutput(spec.stderr_path);
    if (!stderr_fd.ok()) {
      return stderr_fd.status();
    }
    stderr_owner.reset(*stderr_fd);
  }
  const int child_stdin = spec.stdin_fd >= 0 ? spec.stdin_fd : stdin_owner.get();
  const int child_stdout = spec.stdout_fd >= 0 ? spec.stdout_fd : stdout_owner.get();
  const int child_stderr = spec.stderr_fd >= 0 ? spec.stderr_fd
                           : same_output       ? STDOUT_FILENO
                                               : stderr_owner.get();

  FileActions actions;
  posix_spawn_file_actions_adddup2(actions.get(), child_stdin, STDIN_FILENO);
  posix_spawn_file_actions_adddup2(actions.get(), child_stdout, STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(actions.get(), child_stderr, STDERR_FILENO);
  if (!spec.working_dir.empty()) {
    posix_spawn_file_actions_addchdir_np(actions.get(), spec.working_dir.c_str());
  }
  posix_spawn_file_actions_addclosefrom_np(actions.get(), STDERR_FILENO + 1);

  SpawnAttr attr;
  sigset_t blocked;
  sigemptyset(&blocked);
  for (int signal : spec.blocked_signals) {
    sigaddset(&blocked, signal);
  }
  sigset_t all;
  sigfillset(&all);
  posix_spawnattr_setflags(attr.get(),
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  posix_spawnattr_setpgroup(attr.get(), 0);
  posix_spawnattr_setsigmask(attr.get(), &blocked);
  posix_spawnattr_setsigdefault(attr.get(), &all);

  std::vector<std::string> args = spec.argv;
  std::vector<char*> argv = Pointers(args);
  std::vector<std::string> env_strings = EnvStrings(env);
  std::vector<char*> envp = Pointers(env_strings);
  std::optional<PreparedView> view;  // built here: the child may not allocate
  if (spec.user.has_value() && spec.view.has_value()) {
    view.emplace(*spec.view, spec.user);
  }
  pid_t pid = 0;
  int rc = spec.user.has_value()
               ? ForkAs(*spec.user, view.has_value() ? &*view : nullptr, program->c_str(),
                        argv.data(), envp.data(), {child_stdin, child_stdout, child_stderr},
                        spec.working_dir, blocked, pid)
               : posix_spawn(&pid, program->c_str(), actions.get(), attr.get(), argv.data(),
                             envp.data());
  if (rc == ENOENT || rc == EACCES || rc == ENOEXEC || rc == ENOTDIR || rc == ELOOP ||
      rc == EISDIR) {
    return Status::FailedPrecondition(fmt::format("Cannot run {}: {}", spec.argv[0], Errno(rc)));
  }
  if (rc != 0) {
    return Status::Internal(fmt::format("Cannot start {}: {}", spec.argv[0], Errno(rc)));
  }
  return static_cast<int>(pid);
}

}  // namespace trainyard::run::local
