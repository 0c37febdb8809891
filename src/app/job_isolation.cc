#include "app/job_isolation.h"

#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "control/job_directories.h"
#include "control/job_layout.h"
#include "os/file_status.h"
#include "os/process.h"
#include "plan/base_environment.h"
#include "run/local/credentials.h"

namespace trainyard::app {
namespace {

namespace fs = std::filesystem;

constexpr unsigned kSetGid = os::kSetGroupIdBit;
constexpr unsigned kDataDirMode = kSetGid | 0710;    // the group may pass, not list or write
constexpr unsigned kSharedDirMode = kSetGid | 0770;  // buckets/: the group writes
// packages/: the group passes to the entries its jobs use (the server writes them all:
// run/local/package_cache.h), neither lists nor writes.
constexpr unsigned kPackagesDirMode = kSetGid | 0710;
constexpr unsigned kJobsDirMode = kSetGid | 0750;  // jobs/: the group reads (job_directories.h)

// FAILED_PRECONDITION "--run-as: cannot <what> <path>: <why>", `error` the errno of what failed.
Status CannotChange(const fs::path& path, std::string_view what, int error) {
  return Status::FailedPrecondition(
      fmt::format("--run-as: cannot {} {}: {}", what, path.string(), Errno(error)));
}

// `path`'s mode becomes `mode`, or FAILED_PRECONDITION naming it.
Status SetMode(const fs::path& path, unsigned mode) {
  int error = 0;
  return os::ChangeMode(path.string(), mode, &error).ok()
             ? Status()
             : CannotChange(path, "change the mode of", error);
}

// `path`'s group becomes `gid`, and the group gets what the owner has of read (and of write,
// with `group_writes`; of search, for a directory, which also gets the set-group-id bit).
Status ShareWithGroup(const fs::path& path, unsigned gid, bool group_writes) {
  int error = 0;
  Result<os::FileStatus> st = os::StatLink(path.string(), &error);
  if (!st.ok()) {
    return CannotChange(path, "inspect", error);
  }
  if (st->type == os::FileType::kSymlink) {
    return {};
  }
  if (!os::ChangeGroup(path.string(), gid, /*follow_link=*/false, &error).ok()) {
    return CannotChange(path, "change the group of", error);
  }
  unsigned mode = st->mode;
  mode |= (mode & (group_writes ? 0600 : 0400)) >> 3;  // the owner's r (and w) for the group
  if (st->type == os::FileType::kDirectory) {
    mode |= kSetGid | (group_writes ? 0070 : 0050);
  }
  return SetMode(path, mode);
}

// `dir` (created when missing, then of mode `dir_mode`) shared with the group: once,
// recursively, when the server had it alone; afterwards everything made in it inherits the group
// by the set-group-id bit.
Status ShareTree(const fs::path& dir, unsigned gid, unsigned dir_mode) {
  const bool group_writes = (dir_mode & 0020) != 0;
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) {
    return CannotChange(dir, "create", error.value());
  }
  int stat_error = 0;
  Result<os::FileStatus> st = os::StatPath(dir.string(), &stat_error);
  if (!st.ok()) {
    return CannotChange(dir, "create", stat_error);
  }
  if (st->gid != gid || (st->mode & kSetGid) == 0) {
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
  return SetMode(dir, dir_mode);
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
    if (name.ends_with(".lock") && item.is_regular_file(kind)) {
      TY_RETURN_IF_ERROR(SetMode(item.path(), 0600));
    }
    if (name == "leases" && item.is_directory(kind)) {
      TY_RETURN_IF_ERROR(SetMode(item.path(), 0700));
      for (const fs::directory_entry& key : fs::directory_iterator(item.path(), kind)) {
        std::error_code key_kind;
        if (key.is_directory(key_kind) && !key.is_symlink(key_kind)) {
          TY_RETURN_IF_ERROR(SetMode(key.path(), 0700));
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
    int stat_error = 0;
    Result<os::FileStatus> st = os::StatPath(parent.string(), &stat_error);
    if (!st.ok()) {
      return CannotChange(parent, "inspect", stat_error);
    }
    // Search permission: the owner's x, the group's, or others'.
    const bool passes = st->uid == user.uid   ? (st->mode & 0100) != 0
                        : st->gid == user.gid ? (st->mode & 0010) != 0
                                              : (st->mode & 0001) != 0;
    if (!passes) {
      return Status::FailedPrecondition(fmt::format(
          "--run-as: the user {} cannot reach the data directory {}: {} (mode {:o}) does not "
          "let it pass; use a data directory below directories others may enter (e.g. "
          "/var/lib/trainyard) or chmod o+x {}",
          user.name, real.string(), parent.string(), st->mode, parent.string()));
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
    if (os::EffectiveUid() != 0) {
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
  os::SetUmask(007);
  int error = 0;
  if (!os::ChangeGroup(root.string(), user->gid, /*follow_link=*/true, &error).ok()) {
    return CannotChange(root, "change the group of", error);
  }
  TY_RETURN_IF_ERROR(SetMode(root, kDataDirMode));
  TY_RETURN_IF_ERROR(ShareTree(root / "jobs", user->gid, kJobsDirMode));
  TY_RETURN_IF_ERROR(SecureJobTrees(root));
  // The server installs there (pip as the user, in a directory of its own); jobs read entries.
  TY_RETURN_IF_ERROR(ShareTree(root / "packages", user->gid, kPackagesDirMode));
  TY_RETURN_IF_ERROR(SecurePackageCache(root / "packages"));
  return ShareTree(root / "buckets", user->gid, kSharedDirMode);
}

Result<std::string> PrepareJobPrivateRoot(const std::string& data_dir) {
  Result<os::FileStatus> shm = os::StatPath("/dev/shm");
  if (!shm.ok() || shm->type != os::FileType::kDirectory) {
    return std::string();
  }
  int error = 0;
  Result<os::FileStatus> data = os::StatPath(data_dir, &error);
  if (!data.ok()) {
    return Status::Internal(fmt::format("Cannot read {}: {}", data_dir, Errno(error)));
  }
  const std::string root =
      fmt::format("/dev/shm/trainyard-{}-{}", static_cast<unsigned long>(data->device),
                  static_cast<unsigned long>(data->inode));
  Result<bool> made_now = os::MakeDirectory(root, 0700);
  if (!made_now.ok()) {
    return made_now.status();  // "cannot create <root>: <why>"
  }
  Result<os::FileStatus> made = os::StatLink(root);
  if (!made.ok() || made->type != os::FileType::kDirectory || made->uid != os::EffectiveUid() ||
      made->mode != 0700) {
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
    int chmod_error = 0;
    if (server_only && entry.is_regular_file(kind) &&
        !os::ChangeMode(entry.path().string(), 0600, &chmod_error).ok()) {
      return Status::Internal(
          fmt::format("cannot make {} private: {}", entry.path().string(), Errno(chmod_error)));
    }
  }
  if (error) {
    return Status::Internal(fmt::format("cannot list {}: {}", data_dir, error.message()));
  }
  return {};
}

}  // namespace trainyard::app
