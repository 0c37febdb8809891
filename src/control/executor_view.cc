// What a local replica sees of the server's files (control/job_view.h), from what the executor
// knows of its job: the paths it decides on are made absolute here, and the job's package link
// is resolved to the cache entry it names.
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "control/executor.h"
#include "control/executor_run.h"
#include "control/job_layout.h"
#include "control/job_view.h"
#include "plan/cluster_plan.h"
#include "run/local/ipc_namespace.h"

namespace trainyard::control {
namespace {

namespace fs = std::filesystem;

std::string Absolute(const std::string& path) {
  if (path.empty()) {
    return path;
  }
  std::error_code error;
  const fs::path absolute = fs::absolute(path, error);
  return error ? path : absolute.lexically_normal().string();
}

}  // namespace

run::FileView Executor::ReplicaView(const Run& run, const model::TrainingInput& input,
                                    const JobLayout& layout) const {
  JobViewInput view{
      .data_dir = Absolute(options_.data_dir),
      .job_root = Absolute(layout.root()),
      .gcs_mount = Absolute(options_.gcs_mount),
      .project_buckets = {},
      .job_dir = "",
      .package_entries = {},
      .hp_metric_dir = "",
      .runtime_modules = {},
      .home = options_.job_home,
      .private_root = options_.private_root.empty()
                          ? std::string()
                          : options_.private_root + "/" + run.project + "/" + run.job_id};
  for (std::size_t start = 0; start < options_.runtime_pythonpath.size();) {  // a PATH-like list
    std::size_t end = options_.runtime_pythonpath.find(':', start);
    end = end == std::string::npos ? options_.runtime_pythonpath.size() : end;
    if (end > start) {
      view.runtime_modules.push_back(
          Absolute(options_.runtime_pythonpath.substr(start, end - start)));
    }
    start = end + 1;
  }
  if (options_.project_buckets) {
    view.project_buckets = options_.project_buckets(run.project);
  }
  if (input.job_dir.starts_with(plan::kGcsScheme)) {
    Result<std::string> local = plan::LocalPathOf(input.job_dir, options_.gcs_mount);
    if (local.ok()) {
      view.job_dir = Absolute(*local);
    }
  }
  if (!input.package_uris.empty()) {
    // The job's packages dir links to its cache entry (run/local/package_cache.h), which is not
    // below the job's root: the entry itself is shown, read-only. The link is the server's (the
    // job cannot write the root), and only the link itself is read.
    std::error_code error;
    const fs::path entry = fs::read_symlink(layout.packages_dir(), error);
    if (!error && entry.is_absolute()) {
      view.package_entries.push_back(entry.lexically_normal().string());
    }
  }
  if (!run.trial_id.empty()) {
    view.hp_metric_dir = Absolute(layout.metrics_dir());
  }
  return JobView(view);
}

void Executor::RemovePrivateDirs(std::string_view project, std::string_view job_id) const {
  if (options_.private_root.empty()) {
    return;
  }
  // What cannot be removed stays: memory, until the machine restarts. The job's IPC namespace
  // is unmounted first (remove_all cannot remove a mount point); a failure to unmount leaves it
  // and the directory, and nothing else of the job's can reach them.
  const fs::path root = fs::path(options_.private_root) / project / job_id;
  if (!run::local::ReleaseIpcNamespace(root.string()).ok()) {
    return;
  }
  std::error_code error;
  fs::remove_all(root, error);
}

void Executor::RemoveStalePrivateDirs() const {
  if (options_.private_root.empty()) {
    return;
  }
  // The directories are the server's alone (0700), named <project>/<job> (ReplicaView).
  std::error_code error;
  for (const fs::directory_entry& project : fs::directory_iterator(options_.private_root, error)) {
    std::error_code inner;
    for (const fs::directory_entry& job : fs::directory_iterator(project.path(), inner)) {
      const std::string project_name = project.path().filename().string();
      const std::string job_id = job.path().filename().string();
      std::string key = project_name;
      key += '/';
      key += job_id;
      if (!runs_.contains(key) && !studies_.contains(key)) {
        RemovePrivateDirs(project_name, job_id);
      }
    }
  }
}

}  // namespace trainyard::control
