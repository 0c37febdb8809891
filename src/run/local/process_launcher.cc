#include "run/local/process_launcher.h"

#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <system_error>
#include <utility>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/check.h"
#include "base/status.h"
#include "os/file.h"
#include "os/unique_fd.h"
#include "run/local/credentials.h"
#include "run/local/proc_file.h"
#include "run/local/supervisor_command.h"

namespace trainyard::run::local {
namespace {

namespace fs = std::filesystem;

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

// How the adopted supervisor behind `pidfd`, which has exited, ended: as its exit file says, or
// killed (with its group, by SIGKILL) before it could write one. It is reaped when it happens to
// be a child of this process (adopted from an earlier launcher in this process).
ExitStatus AdoptedExit(int pidfd, const std::string& exit_path) {
  siginfo_t info{};
  waitid(static_cast<idtype_t>(P_PIDFD), static_cast<id_t>(pidfd), &info, WEXITED | WNOHANG);
  return ReadExitStatus(exit_path).value_or(ExitStatus{.signaled = true, .signal = SIGKILL});
}

bool HasExited(int pidfd) {
  pollfd fd{.fd = pidfd, .events = POLLIN};
  return poll(&fd, 1, 0) != 0;
}

// A memfd holding `env` as the supervisor reads it (EncodeEnvironment), at offset 0.
Result<os::UniqueFd> EnvironmentFile(const Environment& env) {
  os::UniqueFd fd(memfd_create("trainyard-replica-env", MFD_CLOEXEC));
  if (!fd.valid()) {
    return Status::Internal("memfd_create: " + Errno(errno));
  }
  if (const int err = os::WriteFully(fd.get(), EncodeEnvironment(env)); err != 0) {
    return Status::Internal("Cannot write the replica's environment: " + Errno(err));
  }
  if (lseek(fd.get(), 0, SEEK_SET) != 0) {
    return Status::Internal("Cannot rewind the replica's environment: " + Errno(errno));
  }
  return fd;
}

Status CreateParentDirectory(const std::string& path) {
  std::error_code error;
  fs::create_directories(fs::path(path).parent_path(), error);
  if (error) {
    return Status::Internal(
        fmt::format("Cannot create the directory of {}: {}", path, error.message()));
  }
  return {};
}

}  // namespace

std::string DefaultSupervisorPath() {
  std::error_code error;
  fs::path self = fs::read_symlink("/proc/self/exe", error);
  return ((error ? fs::path() : self.parent_path()) / kSupervisorName).string();
}

ProcessLauncher::ProcessLauncher(ExitCallback on_exit, const std::string& supervisor_path)
    : ProcessLauncher(std::move(on_exit), supervisor_path, CurrentEnvironment()) {}

ProcessLauncher::ProcessLauncher(ExitCallback on_exit, const std::string& supervisor_path,
                                 Environment base_env, ContainerRuntime* containers,
                                 std::optional<RunAs> user)
    : on_exit_(std::move(on_exit)),
      supervisor_path_(AbsolutePath(supervisor_path)),
      base_env_(std::move(base_env)),
      containers_(containers),
      user_(std::move(user)),
      wake_fd_(eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)),
      random_(std::random_device{}()) {
  TY_CHECK(on_exit_) << "ProcessLauncher needs an exit callback";
  TY_CHECK(wake_fd_ >= 0) << "eventfd: " << Errno(errno);
  monitor_ = std::jthread([this](const std::stop_token& stop) { Monitor(stop); });
}

ProcessLauncher::~ProcessLauncher() {
  monitor_.request_stop();
  Wake();
  monitor_.join();
  for (const auto& [pidfd, watched] : children_) {
    close(pidfd);  // the child itself keeps running
  }
  close(wake_fd_);
}

Result<int> ProcessLauncher::Start(const ProcessSpec& spec) {
  const bool in_container = spec.container.has_value();
  if ((spec.argv.empty() && !in_container) || spec.log_path.empty() || spec.exit_path.empty()) {
    return Status::Internal(
        "ProcessSpec needs an argv or a container, a log_path and an exit_path");
  }
  if (in_container && containers_ == nullptr) {
    return Status::FailedPrecondition(
        "This job runs container images, but this server runs no container engine.");
  }
  if (in_container) {
    TY_RETURN_IF_ERROR(containers_->Available());
  }
  // A container's environment is its own (on the runtime's command line); its client runs with
  // the server's.
  Environment env = in_container ? base_env_ : MergeEnvironment(base_env_, spec.env);
  std::vector<std::string> argv;
  if (in_container) {
    ContainerSpec container = *spec.container;
    if (user_.has_value()) {
      container.user = UserIds(user_->uid, user_->gid);
    }
    argv = containers_->RunCommand(container, spec.env);
  } else {
    argv = spec.argv;
  }
  Result<std::string> program =
      FindProgram(argv[0], EnvValue(env, "PATH", kDefaultPath), spec.working_dir);
  if (!program.ok()) {
    return program.status();
  }
  // The trainer's environment goes to the supervisor as a file on its stdin, never as its own.
  Result<os::UniqueFd> env_file = EnvironmentFile(env);
  if (!env_file.ok()) {
    return env_file.status();
  }
  SupervisorArgs args{
      .log_path = AbsolutePath(spec.log_path),
      .exit_path = AbsolutePath(spec.exit_path),
      .container = in_container ? spec.container->name : std::string(),
      .user = user_.has_value() && !in_container ? UserIds(user_->uid, user_->gid) : std::string(),
      .env_fd = STDIN_FILENO,
      .view = user_.has_value() && !in_container ? spec.view.value_or(FileView{}) : FileView{},
      .held = spec.held,
      .argv = std::move(argv)};
  args.argv[0] = *program;
  TY_RETURN_IF_ERROR(CreateParentDirectory(args.log_path));
  TY_RETURN_IF_ERROR(CreateParentDirectory(args.exit_path));
  if (unlink(args.exit_path.c_str()) != 0 && errno != ENOENT) {  // an earlier run's
    return Status::Internal(fmt::format("Cannot remove {}: {}", args.exit_path, Errno(errno)));
  }
  Result<int> pid = SpawnProcess(SpawnSpec{.argv = SupervisorCommand(supervisor_path_, args),
                                           .working_dir = spec.working_dir,
                                           .blocked_signals = {kStopSignals[0], kStopSignals[1],
                                                               kStopSignals[2], kHoldRelease},
                                           .stdin_fd = env_file->get()},
                                 Environment{{"PATH", std::string(kSupervisorPath)}});
  if (!pid.ok()) {
    // The program was found: what cannot run is the supervisor, which is this server's fault.
    return pid.status().code() == Code::kFailedPrecondition
               ? Status::Internal(pid.status().message())
               : pid.status();
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
  Watch(pidfd, Watched{.pid = *pid}, args.container);
  return pid;
}

void ProcessLauncher::Release(int pid) {
  if (pid > 1) {
    kill(pid, kHoldRelease);  // the supervisor only; it keeps the signal blocked once released
  }
}

Result<bool> ProcessLauncher::Adopt(int pid, const ProcessSpec& spec) {
  if (pid <= 1) {
    return false;
  }
  // The pidfd first: as long as it has not exited, /proc/<pid> is the process it refers to.
  os::UniqueFd pidfd(OpenPidFd(pid));
  if (!pidfd.valid()) {
    if (errno == ESRCH) {
      return false;
    }
    return Status::Internal(fmt::format("pidfd_open({}): {}", pid, Errno(errno)));
  }
  const std::string exit_path = AbsolutePath(spec.exit_path);
  const Result<std::vector<std::string>> command = ProcessCommandLine(pid);
  if (HasExited(pidfd.get())) {
    return false;  // before or while its command line was read: its exit file says how it ended
  }
  if (!command.ok()) {  // still running, but unreadable: whether it is the replica is unknown
    return Status::Internal(fmt::format("Cannot tell whether process {} is the replica of {}: {}",
                                        pid, exit_path, command.status().message()));
  }
  if (!IsSupervisorCommand(*command, AbsolutePath(spec.log_path), exit_path)) {
    return false;
  }
  Watch(pidfd.release(), Watched{.pid = pid, .exit_path = exit_path},
        spec.container ? spec.container->name : std::string());
  return true;
}

Result<int> ProcessLauncher::FindStarted(const ProcessSpec& spec) {
  const std::string log_path = AbsolutePath(spec.log_path);
  const std::string exit_path = AbsolutePath(spec.exit_path);
  std::error_code error;
  Status unreadable;  // the first command line that could not be read, but not for being gone
  for (fs::directory_iterator it("/proc", error), end; !error && it != end; it.increment(error)) {
    const std::string name = it->path().filename().string();
    int pid = 0;
    const auto [rest, parsed] = std::from_chars(name.data(), name.data() + name.size(), pid);
    if (parsed != std::errc() || rest != name.data() + name.size() || pid <= 1) {
      continue;
    }
    const Result<std::vector<std::string>> command = ProcessCommandLine(pid);
    if (!command.ok()) {
      if (command.status().code() != Code::kNotFound && unreadable.ok()) {
        unreadable = command.status();
      }
      continue;  // exited since it was listed, or unreadable
    }
    // The supervisor leads its process group; its PID namespace's init (replica_init.h), a fork
    // with the same command line, does not.
    if (IsSupervisorCommand(*command, log_path, exit_path) && getpgid(pid) == pid) {
      return pid;
    }
  }
  if (error) {
    return Status::Internal("Cannot list /proc: " + error.message());
  }
  if (!unreadable.ok()) {  // it may have been the replica
    return Status::Internal("Cannot tell whether a replica of " + exit_path +
                            " runs: " + unreadable.message());
  }
  return 0;
}

void ProcessLauncher::Watch(int pidfd, Watched watched, const std::string& container) {
  {
    std::lock_guard lock(mu_);
    if (!container.empty()) {
      containers_by_pid_[watched.pid] = container;
    }
    children_.emplace(pidfd, std::move(watched));
  }
  Wake();
}

void ProcessLauncher::SignalGroup(int pid, int signal) {
  TY_CHECK(pid > 1) << "SignalGroup(" << pid << "): not a process group this launcher started";
  std::string container;
  {
    std::lock_guard lock(mu_);
    if (auto found = containers_by_pid_.find(pid); found != containers_by_pid_.end()) {
      container = found->second;
    }
  }
  // The client passes stop signals on; a SIGKILL would end the client and leave the container.
  if (!container.empty() && signal == SIGKILL) {
    containers_->Kill(container, signal);
  }
  kill(-pid, signal);  // ESRCH: the group is gone already, which is fine
}

namespace {

// The kernel's range of ephemeral ports (what connect() and bind(port 0) take), from
// /proc/sys/net/ipv4/ip_local_port_range; Linux's default when it cannot be read.
std::pair<int, int> EphemeralRange() {
  int low = 32768;
  int high = 60999;
  if (const Result<std::string> text = ReadProcFile("/proc/sys/net/ipv4/ip_local_port_range");
      text.ok()) {
    std::istringstream in(*text);
    int read_low = 0;
    int read_high = 0;
    if (in >> read_low >> read_high && read_low > 0 && read_low <= read_high) {
      low = read_low;
      high = read_high;
    }
  }
  return {low, high};
}

// Binds `fd` to 127.0.0.1:`port` (0: any); the port bound, or -1.
int BindLoopback(int fd, int port) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<std::uint16_t>(port));
  socklen_t len = sizeof(addr);
  // NOLINTNEXTLINE(cppcoreguidelines-pro-type-reinterpret-cast): the sockets API
  auto* generic = reinterpret_cast<sockaddr*>(&addr);
  if (bind(fd, generic, sizeof(addr)) != 0 || getsockname(fd, generic, &len) != 0) {
    return -1;
  }
  return ntohs(addr.sin_port);
}

}  // namespace

// Ports below the ephemeral range when there is room (10000 up to it): between this check and
// the replica's own bind, no outgoing connection of this machine can take them as its source
// port, which on a busy machine (many short connections) it otherwise sometimes did. Chosen at
// random, so that two servers on one machine rarely pick the same one.
Result<std::vector<int>> ProcessLauncher::FreePorts(int count) {
  constexpr int kLowest = 10000;
  const auto [ephemeral_low, ephemeral_high] = EphemeralRange();
  const bool below = ephemeral_low - kLowest >= 1000;
  std::uniform_int_distribution<int> pick(kLowest, below ? ephemeral_low - 1 : kLowest);
  std::lock_guard random_lock(random_mu_);
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
    int port = -1;
    for (int attempt = 0; below && attempt < 64 && port < 0; ++attempt) {
      port = BindLoopback(fd, pick(random_));
    }
    if (port < 0) {
      port = BindLoopback(fd, 0);
    }
    if (port < 0) {
      status = Status::Internal("Cannot bind a port on 127.0.0.1: " + Errno(errno));
      break;
    }
    ports.push_back(port);
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
      for (const auto& [pidfd, watched] : children_) {
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
      Watched watched;
      {
        std::lock_guard lock(mu_);
        watched = std::move(children_.extract(fds[i].fd).mapped());
        containers_by_pid_.erase(watched.pid);
      }
      ExitStatus status =
          watched.exit_path.empty() ? Reap(fds[i].fd) : AdoptedExit(fds[i].fd, watched.exit_path);
      close(fds[i].fd);
      exited.emplace_back(watched.pid, status);
    }
    for (const auto& [pid, status] : exited) {
      on_exit_(pid, status);
    }
  }
}

}  // namespace trainyard::run::local
