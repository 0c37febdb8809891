#include "sched/program.h"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;  // NOLINT(readability-redundant-declaration): POSIX, for posix_spawnp

namespace trainyard::sched::internal {
namespace {

constexpr std::size_t kMaxCapture = 1 << 20;

// Both pipes and the spawn file actions, released on every return path.
struct Resources {
  int out[2] = {-1, -1};
  int err[2] = {-1, -1};
  posix_spawn_file_actions_t actions{};
  bool actions_ready = false;

  Resources() = default;
  Resources(const Resources&) = delete;
  Resources& operator=(const Resources&) = delete;
  ~Resources() {
    for (int fd : {out[0], out[1], err[0], err[1]}) {
      if (fd >= 0) {
        close(fd);
      }
    }
    if (actions_ready) {
      posix_spawn_file_actions_destroy(&actions);
    }
  }
};

Status StartError(const std::string& program, int error) {
  if (error == ENOENT) {
    return Status::NotFound(fmt::format("{} was not found", program));
  }
  return Status::Internal(fmt::format("cannot run {}: {}", program, std::strerror(error)));
}

int Reap(pid_t pid) {
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace

Result<ProgramOutput> RunProgram(const std::vector<std::string>& argv, int idle_timeout_ms) {
  if (argv.empty()) {
    return Status::Internal("RunProgram: empty argument vector");
  }
  Resources res;
  if (pipe2(res.out, O_CLOEXEC) != 0 || pipe2(res.err, O_CLOEXEC) != 0) {
    return StartError(argv[0], errno);
  }
  if (int rc = posix_spawn_file_actions_init(&res.actions); rc != 0) {
    return StartError(argv[0], rc);
  }
  res.actions_ready = true;
  posix_spawn_file_actions_addopen(&res.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&res.actions, res.out[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&res.actions, res.err[1], STDERR_FILENO);

  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const std::string& arg : argv) {
    args.push_back(const_cast<char*>(arg.c_str()));  // posix_spawnp does not modify them
  }
  args.push_back(nullptr);
  pid_t pid = 0;
  if (int rc = posix_spawnp(&pid, argv[0].c_str(), &res.actions, nullptr, args.data(), environ);
      rc != 0) {
    return StartError(argv[0], rc);
  }
  close(res.out[1]);
  close(res.err[1]);
  res.out[1] = res.err[1] = -1;

  ProgramOutput output;
  pollfd fds[2] = {{.fd = res.out[0], .events = POLLIN, .revents = 0},
                   {.fd = res.err[0], .events = POLLIN, .revents = 0}};
  std::string* sinks[2] = {&output.out, &output.err};
  int open_pipes = 2;
  char buffer[4096];
  while (open_pipes > 0) {
    const int ready = poll(fds, 2, idle_timeout_ms);
    if (ready < 0 && errno == EINTR) {
      continue;
    }
    if (ready <= 0) {
      kill(pid, SIGKILL);
      Reap(pid);
      return Status::DeadlineExceeded(
          fmt::format("{} did not finish within {} ms of silence", argv[0], idle_timeout_ms));
    }
    for (int i = 0; i < 2; ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) {
        continue;
      }
      const ssize_t n = read(fds[i].fd, buffer, sizeof buffer);
      if (n > 0) {
        const auto room = kMaxCapture - std::min(kMaxCapture, sinks[i]->size());
        sinks[i]->append(buffer, std::min(room, static_cast<std::size_t>(n)));
      } else if (n == 0 || errno != EINTR) {
        fds[i].fd = -1;  // poll ignores negative descriptors; `res` still closes it
        --open_pipes;
      }
    }
  }
  output.exit_code = Reap(pid);
  return output;
}

}  // namespace trainyard::sched::internal
