// Where a job's files live under the data directory (docs/ARCHITECTURE.md, "Data"):
//
//   <data>/jobs/<project>/<jobId>/packages/            staged packages (pip --target)
//   <data>/jobs/<project>/<jobId>/staging.log          pip's output
//   <data>/jobs/<project>/<jobId>/<task>/              a replica's working directory
//   <data>/jobs/<project>/<jobId>/logs/<task>.stdout   a replica's output (appended on restart)
//   <data>/jobs/<project>/<jobId>/logs/<task>.stderr
//
// Project and job ids are checked at submit ([A-Za-z0-9_-] only), so they are safe path parts.
#pragma once

#include <string>
#include <string_view>

namespace trainyard::control {

class JobLayout {
 public:
  JobLayout(std::string_view data_dir, std::string_view project, std::string_view job_id)
      : root_(std::string(data_dir) + "/jobs/" + std::string(project) + "/" + std::string(job_id)) {
  }

  const std::string& root() const { return root_; }
  std::string packages_dir() const { return root_ + "/packages"; }
  std::string staging_log() const { return root_ + "/staging.log"; }
  std::string working_dir(std::string_view task) const { return root_ + "/" + std::string(task); }
  std::string stdout_path(std::string_view task) const {
    return root_ + "/logs/" + std::string(task) + ".stdout";
  }
  std::string stderr_path(std::string_view task) const {
    return root_ + "/logs/" + std::string(task) + ".stderr";
  }

 private:
  std::string root_;
};

}  // namespace trainyard::control
