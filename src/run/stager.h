// Staging (the PREPARING step): making a job's `packageUris` importable. The local implementation
// is a cache of installs shared by every job (run/local/package_cache.h) in front of pip
// (run/local/pip_stager.h), offline.
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
  std::string target_dir;  // the packages are importable from here (later put on PYTHONPATH)
  std::string python;      // interpreter whose pip installs them
  std::string log_path;    // pip's full output is appended here
};

class Stager {
 public:
  virtual ~Stager() = default;
  // Blocks until done. FAILED_PRECONDITION with a message for the job's errorMessage: a package
  // that does not exist ("Package gs://b/p.tar.gz not found."), or pip failing (its last lines).
  virtual Status Stage(const StageRequest& request) = 0;
  // The job whose packages were staged at `target_dir` no longer runs from them (it ended), so
  // a cache may evict what it used. Idempotent; nothing for a stager without a cache.
  virtual void Release(const std::string& /*target_dir*/) {}
};

}  // namespace trainyard::run
