// Staging (the PREPARING step): making a job's `packageUris` importable. The local implementation
// is a cache of installs shared by every job (run/local/package_cache.h) in front of pip
// (run/local/pip_stager.h), offline.
#pragma once

#include <stop_token>
#include <string>
#include <vector>

#include "base/status.h"

namespace trainyard::run {

struct StageRequest {
  // gs://bucket/object URIs (read from `gcs_mount`/bucket/object) or absolute local paths, in
  // the order they must be installed.
  std::vector<std::string> package_uris;
  std::string gcs_mount;  // directory whose subdirectories are the buckets
  // Set by a stager in front of the installer (the package cache): the server's copies of the
  // packages (run/local/package_files.h), one per URI, in order. The installer installs these
  // and reads nothing of the URIs, so what it installs is what the cache hashed.
  std::vector<std::string> package_files;
  std::string target_dir;  // the packages are importable from here (later put on PYTHONPATH)
  std::string python;      // interpreter whose pip installs them
  std::string log_path;    // pip's full output is appended here
  // A stop requested here ends the install (its processes are stopped) and `Stage` returns
  // CANCELLED promptly: the job was cancelled or the server is stopping.
  std::stop_token stop;
  // Set: the running install's pid is recorded in this file (e.g. <job>/run/staging.pid) while it
  // runs, and an install recorded there that is still running (started by a server that was
  // killed) is stopped before this one starts, so a job never has two installs at once.
  std::string pid_file;
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
