#include "cli/child_process.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, for posix_spawn

namespace trainyard::cli {
namespace {

// Where the child's stdin, stdout and stderr come from, beyond `ChildSpec`.
struct Plumbing {
  bool stdin_null = false;
  int stdout_fd = -1;  // dup'ed onto stdout; -1 inherits
  bool stderr_null = false;
};

// Owns the spawn attributes and file actions on every return path.
class SpawnSetup {
 public:
  SpawnSetup() {
    actions_ok_ = posix_spawn_file_actions_init(&actions_) == 0;
    attr_ok_ = posix_spawnattr_init(&attr_) == 0;
  }
  ~SpawnSetup() {
    if (actions_ok_) {
      posix_spawn_file_actions_destroy(&actions_);
    }
    if (attr_ok_) {
      posix_spawnattr_destroy(&attr_);
    }
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;

  bool ok() const { return actions_ok_ && attr_ok_; }
  posix_spawn_file_actions_t* actions() { return &actions_; }
  posix_spawnattr_t* attr() { return &attr_; }

 private:
  posix_spawn_file_actions_t actions_{};
  posix_spawnattr_t attr_{};
  bool actions_ok_ = false;
  bool attr_ok_ = false;
};

Status CannotRun(const std::string& program, int error) {
  return Status::Internal(fmt::format("Cannot run [{}]: {}", program, std::strerror(error)));
}

// `environ` with each of `overrides` replacing the same-named entry, or appended.
std::vector<std::string> ChildEnvironment(
    const std::vector<std::pair<std::string, std::string>>& overrides) {
  std::vector<std::string> entries;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    const bool replaced = std::ranges::any_of(
        overrides, [&](const auto& override) { return override.first == name; });
    if (!replaced) {
      entries.emplace_back(text);
    }
  }
  for (const auto& [name, value] : overrides) {
    entries.push_back(fmt::format("{}={}", name, value));
  }
  return entries;
}

std::vector<char*> Pointers(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& text : strings) {
    pointers.push_back(text.data());
  }
  pointers.push_back(nullptr);
  return pointers;
}

Result<int> Spawn(const ChildSpec& spec, const Plumbing& plumbing) {
  if (spec.argv.empty()) {
    return Status::Internal("StartChild: empty argument vector");
  }
  const std::string& program = spec.argv.front();
  SpawnSetup setup;
  if (!setup.ok()) {
    return CannotRun(program, ENOMEM);
  }
  posix_spawn_file_actions_t* actions = setup.actions();
  if (plumbing.stdin_null) {
    posix_spawn_file_actions_addopen(actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  if (plumbing.stdout_fd >= 0) {
    posix_spawn_file_actions_adddup2(actions, plumbing.stdout_fd, STDOUT_FILENO);
  }
  if (plumbing.stderr_null) {
    posix_spawn_file_actions_addopen(actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  }
  posix_spawn_file_actions_addclosefrom_np(actions, STDERR_FILENO + 1);
  const std::string dir = spec.working_dir.string();
  if (!dir.empty()) {
    posix_spawn_file_actions_addchdir_np(actions, dir.c_str());
  }

  posix_spawnattr_t* attr = setup.attr();
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (spec.background) {
    flags |= POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(attr, 0);
  }
  posix_spawnattr_setflags(attr, flags);
  sigset_t empty;
  sigemptyset(&empty);
  posix_spawnattr_setsigmask(attr, &empty);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(attr, &defaults);

  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = ChildEnvironment(spec.env);
  std::vector<char*> argv = Pointers(args);
  std::vector<char*> envp = Pointers(env);
  pid_t pid = 0;
  if (int rc = posix_spawnp(&pid, program.c_str(), actions, attr, argv.data(), envp.data());
      rc != 0) {
    return CannotRun(program, rc);
  }
  return static_cast<int>(pid);
}

}  // namespace

Result<int> StartChild(const ChildSpec& spec) {
  return Spawn(spec, {.stdin_null = spec.background});
}

int ExitCodeOf(int wait_status) {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : 128 + WTERMSIG(wait_status);
}

Result<CapturedOutput> CaptureStdout(const std::vector<std::string>& argv) {
  int fds[2] = {-1, -1};
  if (pipe2(fds, O_CLOEXEC) != 0) {
    return CannotRun(argv.empty() ? "" : argv.front(), errno);
  }
  Result<int> pid =
      Spawn({.argv = argv}, {.stdin_null = true, .stdout_fd = fds[1], .stderr_null = true});
  close(fds[1]);
  if (!pid.ok()) {
    close(fds[0]);
    return pid.status();
  }
  CapturedOutput result;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(fds[0], buffer, sizeof buffer);
    if (n > 0) {
      result.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return CannotRun(argv.front(), errno);
    }
  }
  result.exit_code = ExitCodeOf(status);
  return result;
}

}  // namespace trainyard::cli
