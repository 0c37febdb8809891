// What keeps a server's jobs away from the server (issue #17, "jobs run unprivileged"):
// - `--run-as USER`: trainers, pip and containers run as that unprivileged user, not as the
//   server's (root). The data directory's group becomes the user's group, with the set-group-id
//   bit: buckets/ (trainers read and write gs:// paths as files) and packages/ are shared with
//   that group and nobody else (the server's umask becomes 007); jobs/ the group may read, and
//   it writes only in a job's working and metrics directories, never where the server writes as
//   root (control/job_directories.h); the server's own files (the databases, tokens.db,
//   job-token.key) stay readable by the server only.
// - an environment from an allow-list (plan/base_environment.h, plus `--pass-env`), so no secret
//   of the server's environment reaches job code;
// - local packageUris only from `--package-dir` directories once the server is shared (tokens)
//   or runs jobs as another user (validate/local_packages.h at submit, the stager at staging).
// Jobs all run as the one user: they are kept from the server, not from each other.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "app/serve.h"
#include "base/status.h"
#include "run/local/spawn.h"
#include "run/run_as.h"
#include "validate/local_packages.h"

namespace trainyard::app {

struct JobIsolation {
  std::optional<run::RunAs> user;       // --run-as; nullopt: the server's own user
  run::local::Environment environment;  // every job process's base environment
  validate::LocalPackagePolicy packages;
};

// The isolation `options` ask for, from this process's environment. FAILED_PRECONDITION for a
// --run-as the server cannot honour (no such user, root, a server that is not root, the Slurm
// backend); INVALID_ARGUMENT for a malformed --pass-env or a relative --package-dir.
Result<JobIsolation> PlanJobIsolation(const ServeOptions& options);

// Before the stores open: with a user, sets this process's umask to 007 and gives the data
// directory (and its jobs/, packages/ and buckets/, recursively when they were the server's
// alone) to the user's group with the set-group-id bit, so what the server creates there is the
// group's; the directories of every job where the server writes lose the group's write access
// (an older server gave it).
Status PrepareDataDirectory(const std::string& data_dir, const std::optional<run::RunAs>& user);

// With a user: the directory below which each job's private directories are (run/file_view.h
// `private_root`): `/dev/shm/trainyard-<device>-<inode of the data directory>`, made when
// missing, root's alone (0700), memory like the /tmp and /dev/shm it stands for. "" when the
// machine has no /dev/shm (each replica then gets empty ones of its own). FAILED_PRECONDITION
// when the name is taken by anything but such a directory of this process's user (a link
// planted in /dev/shm, which anybody may write).
Result<std::string> PrepareJobPrivateRoot(const std::string& data_dir);

// After the stores open: the databases (with their -wal and -shm), tokens.db and job-token.key
// readable and writable by the server only (mode 0600), whatever a umask made them.
Status ProtectServerFiles(const std::string& data_dir);

}  // namespace trainyard::app
