#include "run/local/pip_stager.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <optional>
#include <span>
#include <sstream>
#include <stop_token>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/status.h"
#include "os/no_follow.h"
#include "run/launcher.h"
#include "run/local/install_script.h"
#include "run/local/package_files.h"
#include "run/local/proc_file.h"
#include "run/local/spawn.h"
#include "run/view_paths.h"

namespace trainyard::run::local {
namespace {

namespace fs = std::filesystem;

// How long a recorded install (not our child) may take to go after SIGKILL.
constexpr std::chrono::seconds kRecordedExitWait{5};
constexpr std::streamoff kMaxTailBytes =
    std::streamoff{64} * 1024;  // enough for any number of tail lines

// The size of `path`, 0 when it does not exist yet.
std::streamoff FileSize(const std::string& path) {
  std::error_code error;
  auto size = fs::file_size(path, error);
  return error ? 0 : static_cast<std::streamoff>(size);
}

// The last `count` non-empty lines written to `path` from byte `from` on.
std::string Tail(const std::string& path, std::streamoff from, int count) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return "";
  }
  in.seekg(0, std::ios::end);
  std::streamoff end = in.tellg();
  from = std::max(from, end - kMaxTailBytes);
  in.seekg(from);
  std::stringstream text;
  text << in.rdbuf();
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(text, line)) {
    line.erase(line.find_last_not_of(" \t\r") + 1);
    if (line.empty()) {
      continue;
    }
    lines.push_back(std::move(line));
    if (static_cast<int>(lines.size()) > count) {
      lines.pop_front();
    }
  }
  std::string out;
  for (const auto& kept : lines) {
    out += out.empty() ? "" : "\n";
    out += kept;
  }
  return out;
}

ExitStatus FromWaitStatus(int status) {
  if (WIFSIGNALED(status)) {
    return ExitStatus{.signaled = true, .signal = WTERMSIG(status)};
  }
  return ExitStatus{.code = WEXITSTATUS(status)};
}

// Polls `fds` until one is ready or `timeout` passes (negative: no limit). Returns the number
// ready, 0 on timeout, -1 on error.
int PollFor(std::span<pollfd> fds, std::chrono::milliseconds timeout) {
  int ready = 0;
  do {
    ready = poll(fds.data(), fds.size(), static_cast<int>(timeout.count()));
  } while (ready < 0 && errno == EINTR);
  return ready;
}

// Stops the process group led by `pid` (whose pidfd is `pidfd`): SIGTERM, then SIGKILL when
// the leader has not exited after `grace`. Does not reap it.
void StopGroup(int pid, int pidfd, std::chrono::milliseconds grace) {
  if (kill(-pid, SIGTERM) != 0) {
    kill(pid, SIGTERM);
  }
  std::array<pollfd, 1> fds = {pollfd{.fd = pidfd, .events = POLLIN}};
  if (pidfd < 0 || PollFor(fds, grace) <= 0) {
    if (kill(-pid, SIGKILL) != 0) {
      kill(pid, SIGKILL);
    }
  }
}

enum class Ended : std::uint8_t { kExited, kTimedOut, kStopped };

// Waits for the child `pid` (ours, not yet reaped) for up to `timeout_seconds` (0: no limit) or
// until `stop` is requested. Out of time, it is killed; stopped, it gets SIGTERM and, after
// `grace`, SIGKILL. Either way it is reaped, and then whatever is left of its process group is
// killed too. Returns how it ended and, for kExited, its status.
Result<std::pair<Ended, ExitStatus>> WaitForInstall(int pid, int timeout_seconds,
                                                    const std::stop_token& stop,
                                                    std::chrono::milliseconds grace) {
  int pidfd = OpenPidFd(pid);
  int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  Status status;
  Ended ended = Ended::kExited;
  if (pidfd < 0 || timer < 0 || wake < 0) {
    status = Status::Internal("Cannot watch pip: " + Errno(errno));
  } else {
    const std::stop_callback on_stop(stop, [wake] {
      const std::uint64_t one = 1;
      (void)!write(wake, &one, sizeof one);
    });
    itimerspec spec{};
    spec.it_value.tv_sec = std::max(timeout_seconds, 0);
    timerfd_settime(timer, 0, &spec, nullptr);
    std::array<pollfd, 3> fds = {pollfd{.fd = pidfd, .events = POLLIN},
                                 pollfd{.fd = timer, .events = POLLIN},
                                 pollfd{.fd = wake, .events = POLLIN}};
    const int ready = PollFor(fds, std::chrono::milliseconds(-1));
    if (ready > 0 && fds[0].revents == 0) {
      ended = fds[2].revents != 0 ? Ended::kStopped : Ended::kTimedOut;
    }
  }
  if (!status.ok() || ended == Ended::kTimedOut) {
    kill(-pid, SIGKILL);
  } else if (ended == Ended::kStopped) {
    StopGroup(pid, pidfd, grace);
  }
  for (int fd : {pidfd, timer, wake}) {
    if (fd >= 0) {
      close(fd);
    }
  }
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  // The group outlives its leader while a member lives, and its id is not reused meanwhile.
  kill(-pid, SIGKILL);
  if (!status.ok()) {
    return status;
  }
  return std::pair(ended, FromWaitStatus(wait_status));
}

// Whether `words` are an install's command line: the interpreter (or a wrapper of it) running
// the install script.
bool IsInstallCommandLine(const std::vector<std::string>& words) {
  for (std::size_t i = 0; i + 1 < words.size(); ++i) {
    if (words[i] == "-c" && words[i + 1] == kInstallScript) {
      return true;
    }
  }
  return false;
}

}  // namespace

Status StopRecordedInstall(const std::string& pid_file, std::chrono::milliseconds grace) {
  if (pid_file.empty()) {
    return {};
  }
  const std::optional<std::string> text = os::ReadRegularFile(pid_file, 64);
  int pid = 0;
  if (text) {
    std::istringstream(*text) >> pid;
  }
  if (pid > 1) {
    // The same process as when we looked: a pidfd first, then its command line.
    const int pidfd = OpenPidFd(pid);
    Result<std::vector<std::string>> words = ProcessCommandLine(pid);
    if (pidfd >= 0 && words.ok() && IsInstallCommandLine(*words)) {
      StopGroup(pid, pidfd, grace);
      // Not our child: its exit is seen on the pidfd (its parent, init, reaps it).
      std::array<pollfd, 1> fds = {pollfd{.fd = pidfd, .events = POLLIN}};
      const int ready = PollFor(fds, kRecordedExitWait);
      kill(-pid, SIGKILL);  // the rest of its group
      if (ready <= 0) {
        close(pidfd);
        return Status::Unavailable(
            fmt::format("An earlier install of this job's packages (pid {}) did not stop.", pid));
      }
    }
    if (pidfd >= 0) {
      close(pidfd);
    }
  }
  std::error_code error;
  fs::remove(pid_file, error);
  return {};
}

Status PipStager::Stage(const StageRequest& request) {
  std::optional<PackageCopies> copies;
  if (request.package_files.empty()) {
    Result<PackageCopies> made = PackageCopies::Make(request, options_.package_dirs);
    if (!made.ok()) {
      return made.status();
    }
    copies.emplace(*std::move(made));
  }
  const std::vector<std::string>& files = copies ? copies->files() : request.package_files;
  if (files.empty()) {
    return {};
  }

  const std::string target = AbsolutePath(request.target_dir);
  Environment base = options_.environment.value_or(CurrentEnvironment());
  SpawnSpec spec{
      .argv = {request.python, "-c", std::string(kInstallScript), target},
      .env = {{"PIP_NO_INDEX", "1"}, {"PIP_ROOT_USER_ACTION", "ignore"}},
      .working_dir = target,
      .stdout_path = request.log_path,
      .stderr_path = request.log_path,
      .user = options_.user,
      .view = NormaliseView(
          FileView{.hidden = options_.data_dir,
                   .writable = {target},
                   .readable = files,
                   .private_dirs = JobPrivateDirs(options_.user ? options_.user->home : "")}),
  };
  spec.argv.insert(spec.argv.end(), files.begin(), files.end());
  if (EnvValue(base, "HOME").empty()) {
    spec.env.emplace_back("HOME", target);
  }

  // Never two installs of one job: one a killed server started is stopped first.
  TY_RETURN_IF_ERROR(StopRecordedInstall(request.pid_file, options_.stop_grace));
  if (request.stop.stop_requested()) {
    return Status::FromCode(Code::kCancelled, "Installing packages was cancelled.");
  }
  std::streamoff log_start = FileSize(request.log_path);
  Result<int> pid = SpawnProcess(spec, base);
  if (!pid.ok()) {
    return pid.status();
  }
  Status recorded;
  if (!request.pid_file.empty()) {
    std::error_code error;
    fs::create_directories(fs::path(request.pid_file).parent_path(), error);
    recorded = os::ReplaceFileNoFollow(request.pid_file, fmt::format("{}\n", *pid), 0600);
  }
  // Unrecorded, it could outlive a killed server unseen: it does not run.
  std::stop_source unrecorded;
  if (!recorded.ok()) {
    unrecorded.request_stop();
  }
  Result<std::pair<Ended, ExitStatus>> exit =
      WaitForInstall(*pid, options_.timeout_seconds,
                     recorded.ok() ? request.stop : unrecorded.get_token(), options_.stop_grace);
  if (!request.pid_file.empty() && recorded.ok()) {
    std::error_code error;
    fs::remove(request.pid_file, error);
  }
  if (!recorded.ok()) {
    return recorded;
  }
  if (!exit.ok()) {
    return exit.status();
  }
  if (exit->first == Ended::kStopped) {
    return Status::FromCode(Code::kCancelled,
                            "Installing packages was cancelled; pip was stopped.");
  }
  if (exit->first == Ended::kTimedOut) {
    return Status::FailedPrecondition(
        fmt::format("Installing packages timed out after {} seconds; pip was stopped.",
                    options_.timeout_seconds));
  }
  const ExitStatus& status = exit->second;
  if (status.Succeeded()) {
    return {};
  }
  std::string tail = Tail(request.log_path, log_start, options_.error_tail_lines);
  if (tail.empty() || status.signaled) {
    tail = fmt::format("pip {}{}{}", status.Describe(), tail.empty() ? "" : "\n", tail);
  }
  return Status::FailedPrecondition("Failed to install packages: " + tail);
}

}  // namespace trainyard::run::local
