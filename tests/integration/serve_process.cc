#include "integration/serve_process.h"

#include <cerrno>
#include <chrono>
#include <string_view>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/build_paths.h"

namespace trainyard::testing {
namespace {

constexpr std::string_view kServingOn = "serving on http://127.0.0.1:";

}  // namespace

ServeProcess::ServeProcess(const std::string& data_dir, std::vector<std::string> extra_args) {
  std::vector<std::string> args = {testing::ServeForTestsPath(), "--listen", "127.0.0.1:0",
                                   "--data-dir", data_dir};
  args.insert(args.end(), extra_args.begin(), extra_args.end());
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (std::string& arg : args) {
    argv.push_back(arg.data());
  }
  argv.push_back(nullptr);

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) {
    output_ = "pipe2 failed";
    return;
  }
  pid_ = fork();
  if (pid_ == 0) {  // the child: only async-signal-safe calls until exec
    dup2(fds[1], STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  close(fds[1]);
  stderr_fd_ = fds[0];
  if (pid_ < 0 || !ReadUntil(std::string(kServingOn))) {
    return;
  }
  const std::size_t at = output_.find(kServingOn) + kServingOn.size();
  port_ = std::stoi(output_.substr(at, output_.find('/', at) - at));
}

ServeProcess::~ServeProcess() {
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    Wait();
  }
  if (stderr_fd_ >= 0) {
    close(stderr_fd_);
  }
}

bool ServeProcess::ReadUntil(const std::string& needle) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (true) {
    const std::size_t found = output_.find(needle);
    if (found != std::string::npos && output_.find('\n', found) != std::string::npos) {
      return true;
    }
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      return false;
    }
    pollfd pfd{.fd = stderr_fd_, .events = POLLIN};
    if (poll(&pfd, 1, static_cast<int>(left.count())) <= 0) {
      continue;  // a signal, or the deadline: checked above
    }
    char buffer[4096];
    const ssize_t n = read(stderr_fd_, buffer, sizeof buffer);
    if (n <= 0) {
      return false;  // the child exited
    }
    output_.append(buffer, static_cast<std::size_t>(n));
  }
}

void ServeProcess::Signal(int signal) {
  if (pid_ > 0) {
    kill(pid_, signal);
  }
}

int ServeProcess::Wait() {
  if (pid_ <= 0) {
    return -1;
  }
  int status = 0;
  while (waitpid(pid_, &status, 0) < 0) {
    if (errno != EINTR) {
      return -1;
    }
  }
  pid_ = -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

}  // namespace trainyard::testing
