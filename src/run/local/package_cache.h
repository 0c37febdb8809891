// The `Stager` that installs each distinct set of packages once (issue #19, "staging once"): a
// content-addressed cache of installed packages under the data directory, shared by every job
// and trial, in front of the installer that does the work (`PipStager`).
//
// An entry is `<dir>/<key>/`, key = SHA-256 over the cache format, the installer's identity, the
// interpreter (its path, real path, size and mtime: an upgrade changes it) and each package
// file's SHA-256, in order; two packages with the same name and different bytes never share one.
// A job's `target_dir` becomes a symbolic link to its entry, so the job's PYTHONPATH (the
// target dir) reaches the shared install read-only; nothing is copied per job.
//
// Who writes (issue #31): only the server. The cache directory, its locks and leases are the
// server's alone; the installer writes only the install's temporary directory, which the server
// creates and, with a run-as user, hands to that user (run/local/package_entry.h), and pip sees
// nothing else of the data directory (pip_stager.h). Before the entry is published the server
// seals it: owned by the server, the run-as user's group may read it, nobody but the server may
// write it (package_entry.h says why the owner changes). A job's view shows its entry read-only
// (control/job_view.h).
//
// Crash safety: the installer writes into `<key>.tmp-<pid>-<n>`; the server seals it, then
// writes the entry's manifest (`.trainyard-entry`) last and renames the directory into place, so
// an entry is whole, sealed and named, or absent. A directory without its manifest is never used
// (it is removed and installed again); temporary directories are removed when the cache opens and
// when their key is next installed; a killed server's install still running for the job
// (`StageRequest::pid_file`) is stopped before its key is locked, and temporaries carry a random
// part, so an orphaned installer never writes into a directory that becomes an entry. Concurrency:
// `flock` on
// `<key>.lock` serialises installing a key across threads
// (each call opens its own descriptor) and processes, so concurrent jobs install it once.
//
// Bounded size: after an install, least recently used entries (the manifest's mtime, touched on
// every use) are evicted until the cache is within `max_bytes`. An entry a job still holds is
// never evicted: `Stage` writes a lease `leases/<key>/<hash of target_dir>` that `Release`
// removes; a lease whose target dir no longer links to the entry (the job deleted, restaged) is
// stale and ignored. Evicting renames the entry to a temporary name first (then removes it), so
// a crash mid-removal leaves nothing that looks whole.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "run/run_as.h"
#include "run/stager.h"

namespace trainyard::run::local {

struct PackageCacheOptions {
  std::string dir;                                   // e.g. <data>/packages; created when missing
  std::uint64_t max_bytes = std::uint64_t{5} << 30;  // evict beyond this (0: never evict)
  // Mixed into every key: what the installer does differently changes it (options, the user).
  std::string installer_identity;
  // Local packages' real paths must lie below one of these (as `PipStagerOptions`'s); checked
  // before a package is read to compute its key.
  std::optional<std::vector<std::string>> package_dirs;
  // A killed server's install of the job (`StageRequest::pid_file`) gets SIGTERM, then SIGKILL
  // after this (`StopRecordedInstall`).
  std::chrono::milliseconds stop_grace{5000};
  // Set (`serve --run-as`): the installer runs as this user; each install's temporary directory
  // is handed to it, and entries are sealed readable by its group (package_entry.h).
  std::optional<RunAs> user;
};

class PackageCache final : public Stager {
 public:
  // `installer` installs into the `target_dir` it is given (a temporary directory here).
  PackageCache(Stager& installer, PackageCacheOptions options);

  // Reads the packages into the server's copies (package_files.h: not found, a link in a
  // bucket, not allowed), then links `request.target_dir` to the entry for the copies' key,
  // having the installer install those copies first when it is missing.
  // The log gets one line saying which entry the job uses and whether it was installed.
  // `request.stop` also ends a wait for another job's install of the same key (CANCELLED).
  Status Stage(const StageRequest& request) override;
  void Release(const std::string& target_dir) override;

  // The key `Stage` would use for these package files (absolute paths) and interpreter.
  Result<std::string> KeyOf(const std::vector<std::string>& files, const std::string& python) const;
  // The entries present (whole ones), least recently used first, with their sizes in bytes.
  struct Entry {
    std::string key;
    std::uint64_t bytes = 0;
  };
  std::vector<Entry> Entries() const;

 private:
  Status Install(const StageRequest& request, const std::vector<std::string>& files,
                 const std::string& key);
  void Lease(const std::string& key, const std::string& target_dir);
  bool InUse(const std::string& key) const;
  void Evict(const std::string& keep);
  void RemoveTemporaries();

  Stager& installer_;
  PackageCacheOptions options_;
};

}  // namespace trainyard::run::local
