// What a job's replicas see of the server's files (run/file_view.h; issue #31, "each job sees
// only its own project"), decided from what the job may use. Pure: the caller resolves the
// package link and lists the project's buckets.
//
// - hidden: the data directory;
// - writable: the job's root (its working directories, trial-<n>/ and hypertune/; the server's
//   run/ and logs/ and the job's token, which the job reads, are below it too, guarded by their
//   modes: control/job_directories.h), each of the project's buckets `<gcs_mount>/<bucket>`, the
//   local path of a `gs://` job directory (only that directory when its bucket is another
//   project's), and a trial's hypertune directory when it is not below the root;
// - readable: the package cache entries the job's packages link to (run/local/package_cache.h),
//   and trainyard's own Python modules (`hypertune`), wherever they are installed;
// - private: /tmp, /var/tmp, /dev/shm and the job user's HOME, below `private_root` when set,
//   so that the job's replicas share them (run/file_view.h).
//
// The lists are then as run::NormaliseView (run/view_paths.h) leaves them: normal, sorted,
// without duplicates or paths another one already shows; what is shown below a private
// directory is shown again inside it (a test's data directory below /tmp).
#pragma once

#include <string>
#include <vector>

#include "run/file_view.h"

namespace trainyard::control {

struct JobViewInput {
  std::string data_dir;                      // absolute; hidden
  std::string job_root;                      // JobLayout::root(), absolute
  std::string gcs_mount;                     // the bucket store's root ("" for none)
  std::vector<std::string> project_buckets;  // the names of the project's buckets
  std::string job_dir;                       // the job directory's local path if gs://, else ""
  std::vector<std::string> package_entries;  // where the job's packages link resolves to
  std::string hp_metric_dir;                 // a trial's hypertune directory ("" for none)
  std::vector<std::string> runtime_modules;  // absolute directories of trainyard's Python modules
  std::string home;                          // the job user's HOME ("" for none)
  std::string private_root;                  // where the job's private directories are, or ""
};

run::FileView JobView(const JobViewInput& input);

}  // namespace trainyard::control
