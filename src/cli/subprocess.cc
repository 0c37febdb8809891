#include "cli/subprocess.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, for posix_spawn

namespace trainyard::cli {
namespace {

// Closes both ends of a pipe and destroys spawn attributes on every return path.
struct SpawnResources {
  int pipe_fds[2] = {-1, -1};
  posix_spawn_file_actions_t actions{};
  bool actions_ready = false;

  ~SpawnResources() {
    for (int fd : pipe_fds) {
      if (fd >= 0) {
        close(fd);
      }
    }
    if (actions_ready) {
      posix_spawn_file_actions_destroy(&actions);
    }
  }
};

Status SpawnError(const std::string& program, int error) {
  return Status::Internal(fmt::format("Cannot run [{}]: {}", program, std::strerror(error)));
}

}  // namespace

Result<ProcessResult> RunProcess(const std::vector<std::string>& argv,
                                 const std::filesystem::path& working_dir) {
  if (argv.empty()) {
    return Status::Internal("RunProcess: empty argument vector");
  }
  SpawnResources res;
  if (pipe2(res.pipe_fds, O_CLOEXEC) != 0) {
    return SpawnError(argv[0], errno);
  }
  if (int rc = posix_spawn_file_actions_init(&res.actions); rc != 0) {
    return SpawnError(argv[0], rc);
  }
  res.actions_ready = true;
  const std::string dir = working_dir.string();
  posix_spawn_file_actions_addopen(&res.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&res.actions, res.pipe_fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&res.actions, res.pipe_fds[1], STDERR_FILENO);
  posix_spawn_file_actions_addchdir_np(&res.actions, dir.c_str());

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) {
    args.push_back(const_cast<char*>(arg.c_str()));  // posix_spawn does not modify them
  }
  args.push_back(nullptr);

  pid_t pid = 0;
  if (int rc = posix_spawn(&pid, argv[0].c_str(), &res.actions, nullptr, args.data(), environ);
      rc != 0) {
    return SpawnError(argv[0], rc);
  }
  close(res.pipe_fds[1]);
  res.pipe_fds[1] = -1;

  ProcessResult result;
  char buffer[4096];
  while (true) {
    const ssize_t n = read(res.pipe_fds[0], buffer, sizeof buffer);
    if (n > 0) {
      result.output.append(buffer, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) {
      return SpawnError(argv[0], errno);
    }
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace trainyard::cli
