#include "app/job_isolation.h"

#include <cstring>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control/job_directories.h"
#include "control/job_layout.h"
#include "plan/base_environment.h"
#include "run/local/credentials.h"

namespace trainyard::app {
namespace {

namespace fs = std::filesystem;

constexpr mode_t kDataDirMode = S_ISGID | 0710;    // the group may pass, not list or write
constexpr mode_t kSharedDirMode = S_ISGID | 0770;  // buckets/: the group writes
// packages/: the group passes to the entries its jobs use (the server writes them all:
// run/local/package_cache.h), neither lists nor writes.
constexpr mode_t kPackagesDirMode = S_ISGID | 0710;
constexpr mode_t kJobsDirMode = S_ISGID | 0750;  // jobs/: the group reads (job_directories.h)

Status CannotChange(const fs::path& path, std::string_view what) {
  return Status::FailedPrecondition(
      fmt::format("--run-as: cannot {} {}: {}", what, path.string(), std::strerror(errno)));
}

// `path`'s group becomes `gid`, and the group gets what the owner has of read (and of write,
// with `group_writes`; of search, for a directory, which also gets the set-group-id bit).
Status ShareWithGroup(const fs::path& path, unsigned gid, bool group_writes) {
  struct stat st {};
  if (lstat(path.c_str(), &st) != 0) {
    return CannotChange(path, "inspect");
  }
  if (S_ISLNK(st.st_mode)) {
    return {};
  }
  if (lchown(path.c_str(), static_cast<uid_t>(-1), gid) != 0) {
    return CannotChange(path, "change the group of");
  }
  mode_t mode = st.st_mode & 07777;
  mode |= (mode & (group_writes ? 0600 : 0400)) >> 3;  // the owner's r (and w) for the group
  if (S_ISDIR(st.st_mode)) {
    mode |= S_ISGID | (group_writes ? 0070 : 0050);
  }
  if (chmod(path.c_str(), mode) != 0) {
    return CannotChange(path, "change the mode of");
  }
  return {};
}

// `dir` (created when missing, then of mode `dir_mode`) shared with the group: once,
// recursively, when the server had it alone; afterwards everything made in it inherits the group
// by the set-group-id bit.
Status ShareTree(const fs::path& dir, unsigned gid, mode_t dir_mode) {
  const bool group_writes = (dir_mode & 0020) != 0;
  std::error_code error;
  fs::create_directories(dir, error);
  struct stat st {};
  if (error || stat(dir.c_str(), &st) != 0) {
    return CannotChange(dir, "create");
  }
  if (st.st_gid != gid || (st.st_mode & S_ISGID) == 0) {
    TY_RETURN_IF_ERROR(ShareWithGroup(dir, gid, group_writes));
    for (auto it = fs::recursive_directory_iterator(dir, error);
         !error && it != fs::recursive_directory_iterator(); it.increment(error)) {
      TY_RETURN_IF_ERROR(ShareWithGroup(it->path(), gid, group_writes));
    }
    if (error) {
      return Status::FailedPrecondition(
          fmt::format("--run-as: cannot walk {}: {}", dir.string(), error.message()));
    }
  }
  return chmod(dir.c_str(), dir_mode) == 0 ? Status() : CannotChange(dir, "change the mode of");
}

// The directories the server writes in, of every job and trial under `data_dir`, without write
// access for the group: an older server left them group-writable (control/job_directories.h).
Status SecureJobTrees(const fs::path& data_dir) {
  std::error_code error;
  for (const fs::directory_entry& project : fs::directory_iterator(data_dir / "jobs", error)) {
    std::error_code kind;
    if (!project.is_directory(kind) || project.is_symlink(kind)) {
      continue;
    }
    for (const fs::directory_entry& job : fs::directory_iterator(project.path(), error)) {
      if (!job.is_directory(kind) || job.is_symlink(kind)) {
        continue;
      }
      const std::string project_id = project.path().filename().string();
      const std::string job_id = job.path().filename().string();
      TY_RETURN_IF_ERROR(control::SecureServerDirectories(
          control::JobLayout(data_dir.string(), project_id, job_id)));
      for (const fs::directory_entry& trial : fs::directory_iterator(job.path() / "run", kind)) {
        const std::string name = trial.path().filename().string();
        if (name.starts_with("trial-") && trial.is_directory(kind) && !trial.is_symlink(kind)) {
          TY_RETURN_IF_ERROR(control::SecureServerDirectories(
              control::JobLayout(data_dir.string(), project_id, job_id, name.substr(6))));
        }
      }
    }
  }
  if (error) {
    return Status::FailedPrecondition(
        fmt::format("--run-as: cannot walk {}: {}", (data_dir / "jobs").string(), error.message()));
  }
  return {};
}

// What an older server left writable by the group in the package cache, where pip installed as
// the user: the key locks (a job holding one would stall every install of that key) and the
// leases become the server's alone. Entries of that time are never used again (their format
// differs: package_cache.cc), so they are left to eviction.
Status SecurePackageCache(const fs::path& packages) {
  std::error_code error;
  for (const fs::directory_entry& item : fs::directory_iterator(packages, error)) {
    const std::string name = item.path().filename().string();
    std::error_code kind;
    if (item.is_symlink(kind)) {
      continue;
    }
    if (name.ends_with(".lock") && item.is_regular_file(kind) &&
        chmod(item.path().c_str(), 0600) != 0) {
      return CannotChange(item.path(), "change the mode of");
    }
    if (name == "leases" && item.is_directory(kind)) {
      if (chmod(item.path().c_str(), 0700) != 0) {
        return CannotChange(item.path(), "change the mode of");
      }
      for (const fs::directory_entry& key : fs::directory_iterator(item.path(), kind)) {
        std::error_code key_kind;
        if (key.is_directory(key_kind) && !key.is_symlink(key_kind) &&
            chmod(key.path().c_str(), 0700) != 0) {
          return CannotChange(key.path(), "change the mode of");
        }
      }
    }
  }
  if (error) {
    return Status::FailedPrecondition(
        fmt::format("--run-as: cannot walk {}: {}", packages.string(), error.message()));
  }
  return {};
}

// FAILED_PRECONDITION naming the first directory above `dir` that `user` may not pass through:
// the data directory is the group's, but its parents are whatever they are (a 0700 home).
Status CheckReachable(const fs::path& dir, const run::RunAs& user) {
  std::error_code error;
  const fs::path real = fs::canonical(dir, error);
  if (error) {
    return Status::FailedPrecondition(
        fmt::format("--run-as: cannot resolve {}: {}", dir.string(), error.message()));
  }
  for (fs::path parent = real.parent_path(); !parent.empty(); parent = parent.parent_path()) {
    struct stat st {};
    if (stat(parent.c_str(), &st) != 0) {
      return CannotChange(parent, "inspect");
    }
    const bool passes = st.st_uid == user.uid   ? (st.st_mode & S_IXUSR) != 0
                        : st.st_gid == user.gid ? (st.st_mode & S_IXGRP) != 0
                                                : (st.st_mode & S_IXOTH) != 0;
    if (!passes) {
      return Status::FailedPrecondition(fmt::format(
          "--run-as: the user {} cannot reach the data directory {}: {} (mode {:o}) does not "
          "let it pass; use a data directory below directories others may enter (e.g. "
          "/var/lib/trainyard) or chmod o+x {}",
          user.name, real.string(), parent.string(), st.st_mode & 07777, parent.string()));
    }
    if (parent == parent.root_path()) {
      break;
    }
  }
  return {};
}

}  // namespace

Result<JobIsolation> PlanJobIsolation(const ServeOptions& options) {
  JobIsolation isolation;
  TY_RETURN_IF_ERROR(plan::CheckPassedPatterns(options.pass_env));
  for (const std::string& dir : options.package_dirs) {
    if (!dir.starts_with('/')) {
      return Status::InvalidArgument(std::vector<FieldViolation>{
          {.field = "package-dir",
           .description = fmt::format("'{}' is not an absolute directory", dir)}});
    }
  }
  if (!options.run_as.empty()) {
    if (options.backend != "local") {
      return Status::FailedPrecondition(
          "--run-as is for the local backend: Slurm runs a job's tasks as the user who submits "
          "it (the server's), so run the server as the user jobs should run as");
    }
    if (geteuid() != 0) {
      return Status::FailedPrecondition(
          "--run-as needs a server running as root: it switches each job's processes to that "
          "user");
    }
    Result<run::RunAs> user = run::local::LookUpUser(options.run_as);
    if (!user.ok()) {
      return user.status();
    }
    isolation.user = std::move(*user);
  }
  isolation.environment =
      plan::JobBaseEnvironment(run::local::CurrentEnvironment(), options.pass_env,
                               isolation.user ? isolation.user->name : std::string(),
                               isolation.user ? isolation.user->home : std::string());
  // A single user's own machine (loopback without tokens, jobs as the server's user) may install
  // any file it has; a shared server only the operator's directories.
  isolation.packages = {
      .any_path = options.package_dirs.empty() && options.auth != "tokens" && !isolation.user,
      .dirs = options.package_dirs};
  return isolation;
}

Status PrepareDataDirectory(const std::string& data_dir, const std::optional<run::RunAs>& user) {
  if (!user.has_value()) {
    return {};
  }
  const fs::path root(data_dir);
  TY_RETURN_IF_ERROR(CheckReachable(root, *user));
  umask(007);
  if (chown(root.c_str(), static_cast<uid_t>(-1), user->gid) != 0) {
    return CannotChange(root, "change the group of");
  }
  if (chmod(root.c_str(), kDataDirMode) != 0) {
    return CannotChange(root, "change the mode of");
  }
  TY_RETURN_IF_ERROR(ShareTree(root / "jobs", user->gid, kJobsDirMode));
  TY_RETURN_IF_ERROR(SecureJobTrees(root));
  // The server installs there (pip as the user, in a directory of its own); jobs read entries.
  TY_RETURN_IF_ERROR(ShareTree(root / "packages", user->gid, kPackagesDirMode));
  TY_RETURN_IF_ERROR(SecurePackageCache(root / "packages"));
  return ShareTree(root / "buckets", user->gid, kSharedDirMode);
}

Result<std::string> PrepareJobPrivateRoot(const std::string& data_dir) {
  struct stat shm {};
  struct stat data {};
  if (stat("/dev/shm", &shm) != 0 || !S_ISDIR(shm.st_mode)) {
    return std::string();
  }
  if (stat(data_dir.c_str(), &data) != 0) {
    return Status::Internal(fmt::format("Cannot read {}: {}", data_dir, std::strerror(errno)));
  }
  const std::string root =
      fmt::format("/dev/shm/trainyard-{}-{}", static_cast<unsigned long>(data.st_dev),
                  static_cast<unsigned long>(data.st_ino));
  if (mkdir(root.c_str(), 0700) != 0 && errno != EEXIST) {
    return Status::Internal(fmt::format("Cannot create {}: {}", root, std::strerror(errno)));
  }
  struct stat made {};
  if (lstat(root.c_str(), &made) != 0 || !S_ISDIR(made.st_mode) || made.st_uid != geteuid() ||
      (made.st_mode & 07777) != 0700) {
    return Status::FailedPrecondition(fmt::format(
        "{} is not a directory of this server's alone (mode 0700): remove it, it holds the "
        "jobs' private /tmp and /dev/shm",
        root));
  }
  return root;
}

Status ProtectServerFiles(const std::string& data_dir) {
  std::error_code error;
  for (const fs::directory_entry& entry : fs::directory_iterator(data_dir, error)) {
    const std::string name = entry.path().filename().string();
    const bool server_only = name.ends_with(".db") || name.ends_with(".db-wal") ||
                             name.ends_with(".db-shm") || name.ends_with(".key");
    std::error_code kind;
    if (server_only && entry.is_regular_file(kind) && chmod(entry.path().c_str(), 0600) != 0) {
      return Status::Internal(
          fmt::format("cannot make {} private: {}", entry.path().string(), std::strerror(errno)));
    }
  }
  if (error) {
    return Status::Internal(fmt::format("cannot list {}: {}", data_dir, error.message()));
  }
  return {};
}

}  // namespace trainyard::app
