#include "control/job_directories.h"

#include <cstdint>
#include <filesystem>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "os/dir.h"
#include "plan/cluster_plan.h"

namespace trainyard::control {
namespace {

// `dir` made when missing (mode 0750, the set-group-id bit inherited), then, opened as a
// directory and not through a link, without write access for its group and others.
Status SecureDirectory(const std::string& path) {
  Result<os::Dir> dir = os::Dir::OpenOrMake(path, 0750);
  Result<os::FileStatus> info = dir.ok() ? dir->Info() : Result<os::FileStatus>(dir.status());
  if (!info.ok()) {
    return Status::Internal(info.status().message());
  }
  if ((info->mode & 0022) != 0) {
    if (Status tightened = dir->SetPermissions(info->mode & ~std::uint32_t{0022});
        !tightened.ok()) {
      return Status::Internal(tightened.message());
    }
  }
  return {};
}

}  // namespace

Status SecureServerDirectories(const JobLayout& layout) {
  const std::filesystem::path root(layout.root());
  std::error_code ignored;  // a missing data directory shows below, naming the directory
  std::filesystem::create_directories(root.parent_path().parent_path().parent_path(), ignored);
  std::vector<std::string> dirs = {root.parent_path().parent_path().string(),  // jobs/
                                   root.parent_path().string(),                // jobs/<project>/
                                   layout.root(), layout.root() + "/run", layout.logs_dir()};
  if (layout.run_dir() != dirs[3]) {  // a trial's, below the job's
    dirs.push_back(layout.run_dir());
    dirs.push_back(layout.task_logs_dir());
  }
  for (const std::string& dir : dirs) {
    TY_RETURN_IF_ERROR(SecureDirectory(dir));
  }
  return {};
}

Status MakeJobDir(std::string_view job_dir, const std::string& gcs_mount) {
  const std::string shown(job_dir);
  Result<std::string> local = plan::LocalPathOf(job_dir, gcs_mount);
  if (!local.ok()) {
    return Status::FailedPrecondition("The job directory " + shown +
                                      " is not usable: " + local.status().message());
  }
  if (!job_dir.starts_with("gs://")) {
    std::error_code error;
    std::filesystem::create_directories(*local, error);
    if (error) {
      return Status::FailedPrecondition("Cannot create the job directory " + shown + ": " +
                                        error.message());
    }
    return {};
  }
  Result<plan::GcsPath> split = plan::SplitGcsUri(job_dir);  // valid: LocalPathOf took it
  if (!split.ok()) {
    return split.status();
  }
  Result<os::Dir> bucket = os::Dir::Open(gcs_mount + "/" + split->bucket);
  if (!bucket.ok()) {
    return Status::FailedPrecondition("The job directory " + shown + " is in bucket " +
                                      split->bucket + ", which does not exist.");
  }
  if (split->path.empty()) {
    return {};
  }
  Result<os::Dir> made = bucket->MakeDirs(split->path, 0777);
  if (!made.ok()) {
    return Status::FailedPrecondition("Cannot create the job directory " + shown + ": " +
                                      made.status().message());
  }
  return {};
}

}  // namespace trainyard::control
