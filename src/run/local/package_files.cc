#include "run/local/package_files.h"

#include <array>
#include <cerrno>
#include <filesystem>
#include <string_view>
#include <system_error>
#include <utility>

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/disk_full.h"
#include "base/path.h"
#include "os/file.h"
#include "os/no_follow.h"
#include "os/unique_fd.h"
#include "plan/cluster_plan.h"

namespace trainyard::run::local {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kCopiesSuffix = ".sources";

// Why `object` cannot be opened beneath `bucket_fd`, for the job's error: the first component
// that is missing or a link, looked at without following one (the refusal itself was the open's;
// this only words it).
Status WhyNotOpened(int bucket_fd, const std::string& object, const std::string& uri,
                    const Status& opened) {
  std::string done;
  for (std::string_view rest = object; !rest.empty();) {
    const std::size_t slash = rest.find('/');
    done += done.empty() ? "" : "/";
    done += rest.substr(0, slash);
    struct stat st {};
    if (::fstatat(bucket_fd, done.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
      return errno == ENOENT || errno == ENOTDIR
                 ? Status::FailedPrecondition(fmt::format("Package {} not found.", uri))
                 : Status::FailedPrecondition(
                       fmt::format("Cannot read package {}: {}", uri, opened.message()));
    }
    if (S_ISLNK(st.st_mode)) {
      return Status::FailedPrecondition(fmt::format(
          "Cannot read package {}: {} is a symbolic link, which is never followed.", uri, done));
    }
    rest = slash == std::string_view::npos ? "" : rest.substr(slash + 1);
  }
  return Status::FailedPrecondition(
      fmt::format("Cannot read package {}: {}", uri, opened.message()));
}

// A gs:// package, opened beneath its bucket's directory without following a link.
Result<os::UniqueFd> OpenGcsPackage(const std::string& uri, const std::string& gcs_mount) {
  Result<plan::GcsPath> split = plan::SplitGcsUri(uri);  // valid: ResolvePackageUri took it
  if (!split.ok()) {
    return Status::FailedPrecondition(
        fmt::format("Package URI {} is not a valid gs://bucket/object name.", uri));
  }
  const auto& [bucket, object] = *split;
  // The buckets' root is the server's; a bucket's entries are its project's jobs'.
  Result<os::UniqueFd> bucket_fd = os::OpenNoFollow(gcs_mount + "/" + bucket, O_PATH | O_DIRECTORY);
  if (!bucket_fd.ok()) {
    return Status::FailedPrecondition(fmt::format("Package {} not found.", uri));
  }
  // O_NONBLOCK: a FIFO planted there is opened at once (and refused below), never waited on.
  Result<os::UniqueFd> fd = os::OpenBeneath(bucket_fd->get(), object, O_RDONLY | O_NONBLOCK);
  if (!fd.ok()) {
    return WhyNotOpened(bucket_fd->get(), object, uri, fd.status());
  }
  return fd;
}

// The stager's own check of a local package's real path (symbolic links resolved).
Status CheckRealPath(const std::string& uri, const std::optional<std::vector<std::string>>& dirs) {
  if (!dirs.has_value()) {
    return {};
  }
  std::error_code error;
  const std::string real = fs::canonical(uri, error).string();
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

// A package opened for reading (a regular file), and the name its copy gets.
struct OpenedPackage {
  os::UniqueFd fd;
  std::string name;  // the last segment of its path
};

Result<OpenedPackage> OpenPackage(const std::string& uri, const StageRequest& request,
                                  const std::optional<std::vector<std::string>>& package_dirs) {
  Result<std::string> path = ResolvePackageUri(uri, request.gcs_mount);
  if (!path.ok()) {
    return path.status();
  }
  OpenedPackage opened;
  opened.name = fs::path(*path).filename().string();
  if (uri.starts_with(plan::kGcsScheme)) {
    Result<os::UniqueFd> fd = OpenGcsPackage(uri, request.gcs_mount);
    if (!fd.ok()) {
      return fd.status();
    }
    opened.fd = *std::move(fd);
  } else {
    std::error_code error;
    if (!fs::exists(*path, error)) {
      return Status::FailedPrecondition(fmt::format("Package {} not found.", uri));
    }
    TY_RETURN_IF_ERROR(CheckRealPath(uri, package_dirs));
    opened.fd.reset(::open(path->c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC));
    if (!opened.fd.valid()) {
      return Status::FailedPrecondition(
          fmt::format("Cannot read package {}: {}", uri, Errno(errno)));
    }
  }
  struct stat st {};
  if (::fstat(opened.fd.get(), &st) != 0 || !S_ISREG(st.st_mode) || opened.name.empty()) {
    return Status::FailedPrecondition(fmt::format("Package {} is not a regular file.", uri));
  }
  return opened;
}

// Copies what `from` holds to the new file `to`, readable by all (whatever the umask: pip may
// run as another user).
Status CopyTo(int from, const std::string& to) {
  Result<os::UniqueFd> out = os::OpenNoFollow(to, O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (!out.ok()) {
    return out.status();
  }
  if (::fchmod(out->get(), 0644) != 0) {
    return Status::Internal(fmt::format("Cannot make {} readable: {}", to, Errno(errno)));
  }
  std::array<char, 1 << 16> buffer{};
  while (true) {
    const ssize_t got = ::read(from, buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      return Status::Internal(fmt::format("Cannot read a package for {}: {}", to, Errno(errno)));
    }
    if (got == 0) {
      return {};
    }
    if (const int err = os::WriteFully(out->get(), std::string_view(buffer.data(), got));
        err != 0) {
      return IsDiskFull(err) ? DiskFullError("copy a package to " + to)
                             : Status::Internal(fmt::format("Cannot write {}: {}", to, Errno(err)));
    }
  }
}

}  // namespace

Result<std::string> ResolvePackageUri(std::string_view uri, std::string_view gcs_mount) {
  if (uri.starts_with(plan::kGcsScheme)) {
    // An object: a bucket and a non-empty name, mapped as every gs:// path is (plan/).
    const std::string_view rest = uri.substr(plan::kGcsScheme.size());
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

Result<PackageCopies> PackageCopies::Make(
    const StageRequest& request, const std::optional<std::vector<std::string>>& package_dirs) {
  const std::string dir =
      fs::absolute(request.target_dir).lexically_normal().string() + std::string(kCopiesSuffix);
  std::error_code error;
  fs::remove_all(dir, error);
  PackageCopies copies(dir);
  if (request.package_uris.empty()) {
    return copies;
  }
  fs::create_directories(fs::path(dir).parent_path(), error);
  if (::mkdir(dir.c_str(), 0700) != 0) {
    return Status::Internal(fmt::format("Cannot create {}: {}", dir, Errno(errno)));
  }
  for (std::size_t i = 0; i < request.package_uris.size(); ++i) {
    const std::string& uri = request.package_uris[i];
    Result<OpenedPackage> package = OpenPackage(uri, request, package_dirs);
    if (!package.ok()) {
      return package.status();
    }
    // One directory each: two packages may have one name (gs://a/p.tar.gz, gs://b/p.tar.gz).
    const std::string index = dir + "/" + std::to_string(i);
    if (::mkdir(index.c_str(), 0700) != 0) {
      return Status::Internal(fmt::format("Cannot create {}: {}", index, Errno(errno)));
    }
    const std::string file = index + "/" + package->name;
    TY_RETURN_IF_ERROR(CopyTo(package->fd.get(), file));
    copies.files_.push_back(file);
  }
  return copies;
}

PackageCopies::PackageCopies(PackageCopies&& other) noexcept
    : dir_(std::exchange(other.dir_, "")), files_(std::move(other.files_)) {}

PackageCopies::~PackageCopies() {
  if (!dir_.empty()) {
    std::error_code error;
    fs::remove_all(dir_, error);
  }
}

}  // namespace trainyard::run::local
