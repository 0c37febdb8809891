#include "run/local/spawn.h"

#include <cerrno>
#include <filesystem>
#include <optional>
#include <system_error>

#include <fcntl.h>
#include <fmt/format.h>
#include <sched.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/status.h"
#include "os/child_setup.h"
#include "os/unique_fd.h"
#include "run/local/sandbox.h"

namespace trainyard::run::local {
namespace {

namespace fs = std::filesystem;

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
Result<os::UniqueFd> OpenOutput(const std::string& path) {
  if (path.empty()) {
    os::UniqueFd fd(open("/dev/null", O_WRONLY | O_CLOEXEC));
    return fd.valid() ? Result<os::UniqueFd>(std::move(fd))
                      : Status::Internal("Cannot open /dev/null: " + Errno(errno));
  }
  TY_RETURN_IF_ERROR(CreateDirectories(fs::path(path).parent_path()));
  os::UniqueFd fd(open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    return Status::Internal(fmt::format("Cannot open {}: {}", path, Errno(errno)));
  }
  return fd;
}

// The end of a child that ran the program in a PID namespace of its own: it waits for the
// namespace's init, the program, and ends as it did. Async-signal-safe.
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

// The forked child's step into a view (os::ChildStep): new PID and mount namespaces, the view
// entered (sandbox.h), and the program forked as the PID namespace's init, so that when it ends
// whatever it started ends too, and it sees no other process of the machine. The child itself
// stays outside, waits for it and ends as it did; a signal that ends the child ends the namespace
// (SIGKILL as the program's parent-death signal). Async-signal-safe.
int EnterSandbox(void* context) noexcept {
  auto& view = *static_cast<PreparedView*>(context);
  if (unshare(CLONE_NEWPID) != 0) {
    return errno;
  }
  if (const int error = EnterView(view); error != 0) {
    return error;
  }
  const pid_t init = fork();
  if (init < 0) {
    return errno;
  }
  if (init > 0) {
    // This process never execs: what it inherited from the server (its listening socket, the
    // package cache's key locks, the databases, os::Spawn's error pipe) would stay open as long
    // as the program runs, past a killed server (a restart could not listen on its port). It
    // needs none of them.
    os::CloseAllAbove(STDERR_FILENO);
    EndLikeInit(init);
  }
  return MountProc();
}

}  // namespace

Result<int> SpawnProcess(const SpawnSpec& spec, const Environment& base_env) {
  if (spec.argv.empty()) {
    return Status::Internal("SpawnSpec has an empty argv");
  }
  Environment env = MergeEnvironment(base_env, spec.env);
  // Looked up before anything is created: a missing program changes nothing.
  TY_RETURN_IF_ERROR(
      FindProgram(spec.argv[0], EnvValue(env, "PATH", kDefaultPath), spec.working_dir).status());
  TY_RETURN_IF_ERROR(CreateDirectories(spec.working_dir));

  os::SpawnOptions options{
      .argv = spec.argv,
      .env = std::move(env),
      .working_dir = spec.working_dir,
      .in = spec.stdin_fd >= 0 ? os::Stdio::Fd(spec.stdin_fd) : os::Stdio::Null(),
      .new_process_group = true,
      .blocked_signals = spec.blocked_signals,
      .default_all_signals = true};
  os::UniqueFd stdout_file;
  if (spec.stdout_fd >= 0) {
    options.out = os::Stdio::Fd(spec.stdout_fd);
  } else {
    Result<os::UniqueFd> opened = OpenOutput(spec.stdout_path);
    if (!opened.ok()) {
      return opened.status();
    }
    stdout_file = std::move(*opened);
    options.out = os::Stdio::Fd(stdout_file.get());
  }
  os::UniqueFd stderr_file;
  if (spec.stderr_fd >= 0) {
    options.err = os::Stdio::Fd(spec.stderr_fd);
  } else if (spec.stdout_fd < 0 && spec.stderr_path == spec.stdout_path) {
    options.err = os::Stdio::SameAsOut();  // one open file
  } else {
    Result<os::UniqueFd> opened = OpenOutput(spec.stderr_path);
    if (!opened.ok()) {
      return opened.status();
    }
    stderr_file = std::move(*opened);
    options.err = os::Stdio::Fd(stderr_file.get());
  }
  std::optional<PreparedView> view;  // built here: the child may not allocate
  if (spec.user.has_value()) {
    options.user = os::UserIds{.uid = spec.user->uid, .gid = spec.user->gid};
    if (spec.view.has_value()) {
      view.emplace(*spec.view, spec.user);
      options.die_with_thread = true;
      options.step = {.run = EnterSandbox, .context = &*view};
    }
  }
  Result<os::Child> child = os::Spawn(options);
  if (!child.ok()) {
    return child.status();
  }
  return child->pid;
}

}  // namespace trainyard::run::local
