#include "run/local/pip_stager.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/path.h"
#include "base/status.h"
#include "plan/cluster_plan.h"
#include "run/launcher.h"
#include "run/local/install_script.h"
#include "run/local/spawn.h"

namespace trainyard::run::local {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kGcsScheme = "gs://";
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

// Waits for the child `pid` (ours, not yet reaped) for up to `timeout_seconds` (0: no limit).
// Returns its status, or nothing when it ran out of time (it is then killed and reaped).
Result<std::optional<ExitStatus>> WaitWithTimeout(int pid, int timeout_seconds) {
  int pidfd = OpenPidFd(pid);
  int timer = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  Status status;
  bool timed_out = false;
  if (pidfd < 0 || timer < 0) {
    status = Status::Internal("Cannot watch pip: " + Errno(errno));
  } else {
    itimerspec spec{};
    spec.it_value.tv_sec = std::max(timeout_seconds, 0);
    timerfd_settime(timer, 0, &spec, nullptr);
    std::array<pollfd, 2> fds = {pollfd{.fd = pidfd, .events = POLLIN},
                                 pollfd{.fd = timer, .events = POLLIN}};
    int ready = 0;
    do {
      ready = poll(fds.data(), fds.size(), -1);
    } while (ready < 0 && errno == EINTR);
    timed_out = ready > 0 && fds[0].revents == 0;
  }
  for (int fd : {pidfd, timer}) {
    if (fd >= 0) {
      close(fd);
    }
  }
  if (!status.ok() || timed_out) {
    kill(-pid, SIGKILL);
  }
  int wait_status = 0;
  while (waitpid(pid, &wait_status, 0) < 0 && errno == EINTR) {
  }
  if (!status.ok()) {
    return status;
  }
  if (timed_out) {
    return std::optional<ExitStatus>();
  }
  return std::optional<ExitStatus>(FromWaitStatus(wait_status));
}

}  // namespace

Result<std::string> ResolvePackageUri(std::string_view uri, std::string_view gcs_mount) {
  if (uri.starts_with(kGcsScheme)) {
    // An object: a bucket and a non-empty name, mapped as every gs:// path is (plan/).
    const std::string_view rest = uri.substr(kGcsScheme.size());
    const std::size_t slash = rest.find('/');
    if (slash == std::string_view::npos || slash == 0 || slash + 1 == rest.size()) {
      return Status::FailedPrecondition(
          fmt::format("Package URI {} is not a valid gs://bucket/object name.", uri));
    }
    if (gcs_mount.empty()) {
      return Status::FailedPrecondition(
          fmt::format("Package {} is in Cloud Storage, which this server does not serve.", uri));
    }
    Result<std::string> path = plan::LocalPathOf(uri, gcs_mount);
    if (!path.ok()) {
      return Status::FailedPrecondition(
          fmt::format("Package URI {} is not a valid gs://bucket/object name.", uri));
    }
    return path;
  }
  if (uri.starts_with('/')) {
    return std::string(uri);
  }
  return Status::FailedPrecondition(fmt::format(
      "Package URI {} is not supported: use gs://bucket/object or an absolute local path.", uri));
}

namespace {

// The stager's own check of a local package's real path (symbolic links resolved).
Status CheckRealPath(const std::string& uri, const std::string& path,
                     const std::optional<std::vector<std::string>>& dirs) {
  if (!dirs.has_value() || !uri.starts_with('/')) {
    return {};
  }
  std::error_code error;
  const std::string real = fs::canonical(path, error).string();
  for (const std::string& dir : *dirs) {
    std::error_code dir_error;
    const std::string real_dir = fs::canonical(dir, dir_error).string();
    if (!error && !dir_error && IsBelowDirectory(real, real_dir)) {
      return {};
    }
  }
  return Status::FailedPrecondition(
      fmt::format("Package {} is not below a directory this server installs local packages from{}.",
                  uri, error ? "" : fmt::format(" (it is {})", real)));
}

}  // namespace

Result<std::vector<std::string>> ResolvePackages(
    const StageRequest& request, const std::optional<std::vector<std::string>>& package_dirs) {
  std::vector<std::string> files;
  for (const auto& uri : request.package_uris) {
    Result<std::string> path = ResolvePackageUri(uri, request.gcs_mount);
    if (!path.ok()) {
      return path.status();
    }
    std::error_code error;
    if (!fs::exists(*path, error)) {
      return Status::FailedPrecondition(fmt::format("Package {} not found.", uri));
    }
    TY_RETURN_IF_ERROR(CheckRealPath(uri, *path, package_dirs));
    files.push_back(AbsolutePath(*path));
  }
  return files;
}

Status PipStager::Stage(const StageRequest& request) {
  Result<std::vector<std::string>> resolved = ResolvePackages(request, options_.package_dirs);
  if (!resolved.ok()) {
    return resolved.status();
  }
  const std::vector<std::string>& files = *resolved;
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
  };
  spec.argv.insert(spec.argv.end(), files.begin(), files.end());
  if (EnvValue(base, "HOME").empty()) {
    spec.env.emplace_back("HOME", target);
  }

  std::streamoff log_start = FileSize(request.log_path);
  Result<int> pid = SpawnProcess(spec, base);
  if (!pid.ok()) {
    return pid.status();
  }
  Result<std::optional<ExitStatus>> exit = WaitWithTimeout(*pid, options_.timeout_seconds);
  if (!exit.ok()) {
    return exit.status();
  }
  if (!exit->has_value()) {
    return Status::FailedPrecondition(
        fmt::format("Installing packages timed out after {} seconds; pip was stopped.",
                    options_.timeout_seconds));
  }
  const ExitStatus& status = **exit;
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
