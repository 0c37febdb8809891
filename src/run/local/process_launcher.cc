#include "run/local/process_launcher.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <utility>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/check.h"

namespace trainyard::run::local {
namespace {

std::string Errno(int err) {
  return std::strerror(err);
}  // NOLINT(concurrency-mt-unsafe)

// Reaps the exited child behind `pidfd`.
ExitStatus Reap(int pidfd) {
  siginfo_t info{};
  int rc = 0;
  do {
    rc = waitid(static_cast<idtype_t>(P_PIDFD), static_cast<id_t>(pidfd), &info, WEXITED);
  } while (rc < 0 && errno == EINTR);
  if (rc < 0) {
    // Somebody else reaped it (a waitpid(-1) elsewhere in the process): the status is lost.
    return ExitStatus{.code = -1};
  }
  if (info.si_code == CLD_EXITED) {
    return ExitStatus{.code = info.si_status};
  }
  return ExitStatus{.signaled = true, .signal = info.si_status};  // CLD_KILLED or CLD_DUMPED
}

}  // namespace

ProcessLauncher::ProcessLauncher(ExitCallback on_exit)
    : ProcessLauncher(std::move(on_exit), CurrentEnvironment()) {}

ProcessLauncher::ProcessLauncher(ExitCallback on_exit, Environment base_env)
    : on_exit_(std::move(on_exit)),
      base_env_(std::move(base_env)),
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) {
  TY_CHECK(on_exit_) << "ProcessLauncher needs an exit callback";
  TY_CHECK(wake_fd_ >= 0) << "eventfd: " << Errno(errno);
  monitor_ = std::jthread([this](const std::stop_token& stop) { Monitor(stop); });
}

ProcessLauncher::~ProcessLauncher() {
  monitor_.request_stop();
  Wake();
  monitor_.join();
  for (const auto& [pidfd, pid] : children_) {
    close(pidfd);  // the child itself keeps running
  }
  close(wake_fd_);
}

Result<int> ProcessLauncher::Start(const ProcessSpec& spec) {
  Result<int> pid = SpawnProcess(spec, base_env_);
  if (!pid.ok()) {
    return pid.status();
  }
  // A child that has already exited is a zombie until reaped, so its pidfd still opens and
  // polls readable: an exit before the monitor sees the pidfd is reported all the same.
  int pidfd = OpenPidFd(*pid);  // close-on-exec
  if (pidfd < 0) {
    int err = errno;
    kill(-*pid, SIGKILL);
    int ignored = 0;
    waitpid(*pid, &ignored, 0);
    return Status::Internal(fmt::format("pidfd_open for {}: {}", spec.argv[0], Errno(err)));
  }
  {
    std::lock_guard lock(mu_);
    children_.emplace(pidfd, *pid);
  }
  Wake();
  return pid;
}

void ProcessLauncher::SignalGroup(int pid, int signal) {
  TY_CHECK(pid > 1) << "SignalGroup(" << pid << "): not a process group this launcher started";
  kill(-pid, signal);  // ESRCH: the group is gone already, which is fine
}

Result<std::vector<int>> ProcessLauncher::FreePorts(int count) {
  std::vector<int> sockets;
  std::vector<int> ports;
  Status status;
  for (int i = 0; i < count && status.ok(); ++i) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
      status = Status::Internal("socket: " + Errno(errno));
      break;
    }
    sockets.push_back(fd);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof(addr);
    // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
    auto* generic = reinterpret_cast<sockaddr*>(&addr);
    if (bind(fd, generic, sizeof(addr)) != 0 || getsockname(fd, generic, &len) != 0) {
      status = Status::Internal("Cannot bind a port on 127.0.0.1: " + Errno(errno));
      break;
    }
    ports.push_back(ntohs(addr.sin_port));
  }
  for (int fd : sockets) {
    close(fd);
  }
  if (!status.ok()) {
    return status;
  }
  return ports;
}

void ProcessLauncher::Wake() const {
  std::uint64_t one = 1;
  // Can only fail when the counter is about to overflow, and then the monitor is awake anyway.
  [[maybe_unused]] ssize_t written = write(wake_fd_, &one, sizeof(one));
}

void ProcessLauncher::Monitor(const std::stop_token& stop) {
  std::vector<pollfd> fds;
  std::vector<std::pair<int, ExitStatus>> exited;
  while (!stop.stop_requested()) {
    fds.assign(1, pollfd{.fd = wake_fd_, .events = POLLIN});
    {
      std::lock_guard lock(mu_);
      for (const auto& [pidfd, pid] : children_) {
        fds.push_back(pollfd{.fd = pidfd, .events = POLLIN});
      }
    }
    if (poll(fds.data(), fds.size(), -1) < 0) {
      TY_CHECK(errno == EINTR) << "poll: " << Errno(errno);
      continue;
    }
    if (fds[0].revents != 0) {
      std::uint64_t count = 0;
      [[maybe_unused]] ssize_t got = read(wake_fd_, &count, sizeof(count));
    }
    exited.clear();
    for (size_t i = 1; i < fds.size(); ++i) {
      if (fds[i].revents == 0) {
        continue;
      }
      ExitStatus status = Reap(fds[i].fd);
      int pid = 0;
      {
        std::lock_guard lock(mu_);
        auto node = children_.extract(fds[i].fd);
        pid = node.mapped();
      }
      close(fds[i].fd);
      exited.emplace_back(pid, status);
    }
    for (const auto& [pid, status] : exited) {
      on_exit_(pid, status);
    }
  }
}

}  // namespace trainyard::run::local
