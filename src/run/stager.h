// Staging (the PREPARING step): making a job's `packageUris` importable. The local implementation
// (run/local/pip_stager.h) installs them with pip into a per-job directory, offline.
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace trainyard::run {

struct StageRequest {
  // gs://bucket/object URIs (read from `gcs_mount`/bucket/object) or absolute local paths, in
  // the order they must be installed.
  std::vector<std::string> package_uris;
  std::string gcs_mount;   // directory whose subdirectories are the buckets
  std::string target_dir;  // installed packages go here (later put on PYTHONPATH)
  std::string python;      // interpreter whose pip installs them
  std::string log_path;    // pip's full output is appended here
};

class Stager {
 public:
  virtual ~Stager() = default;
  // Blocks until done. FAILED_PRECONDITION with a message for the job's errorMessage: a package
  // that does not exist ("Package gs://b/p.tar.gz not found."), or pip failing (its last lines).
  virtual Status Stage(const StageRequest& request) = 0;
};

}  // namespace trainyard::run
