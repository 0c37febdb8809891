// Where a job's files live under the data directory (docs/ARCHITECTURE.md, "Data"):
//
//   <data>/jobs/<project>/<jobId>/packages/            staged packages (pip --target)
//   <data>/jobs/<project>/<jobId>/staging.log          pip's output
//   <data>/jobs/<project>/<jobId>/job.token            the job's token (tokens on; mode 0640)
//   <data>/jobs/<project>/<jobId>/<task>/              a replica's working directory
//   <data>/jobs/<project>/<jobId>/logs/<task>.log      a replica's stdout and stderr as records
//                                                      (logs/log_record.h; appended on restart)
//   <data>/jobs/<project>/<jobId>/logs/service.log     the service's messages about the job
//   <data>/jobs/<project>/<jobId>/run/<task>.exit      how a replica ended, from its supervisor
//   <data>/jobs/<project>/<jobId>/run/replicas.json    what the executor started
//   <data>/jobs/<project>/<jobId>/run/staging.pid      the running install's pid (run/stager.h)
//   (control/run_record.h)
//   <data>/jobs/<project>/<jobId>/run/launch.json      cluster backends: what the tasks run with
//   <data>/jobs/<project>/<jobId>/run/batch.out        cluster backends: the batch step's output
//   <data>/jobs/<project>/<jobId>/run/<task>.started   cluster backends: where a replica started
//
// A hyperparameter-tuning trial n has the same files below `trial-<n>/` (its working
// directories `trial-<n>/<task>/`, logs `logs/trial-<n>/<task>.log` and
// `logs/trial-<n>/service.log`, `run/trial-<n>/…`) plus `trial-<n>/hypertune/<task>.metrics`, the
// file each replica's CLOUD_ML_HP_METRIC_FILE names; packages are staged once per job.
//
// Project and job ids are checked at submit ([A-Za-z0-9_-] only), so they are safe path parts.
#pragma once

#include <string>
#include <string_view>

namespace trainyard::control {

// `<data>/jobs/<project>`: the directory of `project`'s jobs.
inline std::string ProjectJobsDir(std::string_view data_dir, std::string_view project) {
  return std::string(data_dir) + "/jobs/" + std::string(project);
}

class JobLayout {
 public:
  // `trial_id` "" for the job's own files, "3" for trial 3's.
  JobLayout(std::string_view data_dir, std::string_view project, std::string_view job_id,
            std::string_view trial_id = "")
      : root_(ProjectJobsDir(data_dir, project) + "/" + std::string(job_id)),
        trial_(trial_id.empty() ? std::string() : "/trial-" + std::string(trial_id)) {}

  const std::string& root() const { return root_; }
  std::string packages_dir() const { return root_ + "/packages"; }
  std::string staging_log() const { return root_ + "/staging.log"; }
  std::string working_dir(std::string_view task) const {
    return root_ + trial_ + "/" + std::string(task);
  }
  std::string logs_dir() const { return root_ + "/logs"; }
  // The job's (or trial's) logs and run files: logs/ or logs/trial-<n>/, run/ or run/trial-<n>/.
  std::string task_logs_dir() const { return logs_dir() + trial_; }
  std::string run_dir() const { return root_ + "/run" + trial_; }
  std::string log_path(std::string_view task) const {
    return task_logs_dir() + "/" + std::string(task) + ".log";
  }
  std::string service_log() const { return log_path("service"); }
  std::string exit_path(std::string_view task) const {
    return run_dir() + "/" + std::string(task) + ".exit";
  }
  std::string run_record() const { return run_dir() + "/replicas.json"; }
  // The running install's pid (run/stager.h's StageRequest::pid_file), the job's own.
  std::string staging_pid_file() const { return root_ + "/run/staging.pid"; }
  // Cluster backends: what the tasks are launched with (agent/batch_launch.h), the batch
  // step's own output, and what each task writes when its replica starts.
  std::string launch_file() const { return run_dir() + "/launch.json"; }
  std::string batch_output() const { return run_dir() + "/batch.out"; }
  std::string started_path(std::string_view task) const {
    return run_dir() + "/" + std::string(task) + ".started";
  }
  // The job's own token (store/job_tokens.h), for gcloud in its replicas
  // (CLOUDSDK_AUTH_ACCESS_TOKEN_FILE); with a server that checks tokens.
  std::string token_file() const { return root_ + "/job.token"; }
  // Where the replicas' CLOUD_ML_HP_METRIC_FILE files are (`<dir>/<task>.metrics`).
  std::string metrics_dir() const { return root_ + trial_ + "/hypertune"; }

 private:
  std::string root_;
  std::string trial_;  // "" or "/trial-<n>"
};

}  // namespace trainyard::control
