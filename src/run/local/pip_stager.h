// The installer behind the package cache (package_cache.h): the job's packages installed into
// the target dir, offline, by pip or, for pure wheels and legacy sdists, by the cheaper route
// run/local/install_script.h describes.
//
// The packages are read first, into the server's copies (run/local/package_files.h; or the
// request's `package_files`, a cache's copies), so a missing package is reported by name before
// anything runs, and pip reads only those copies. The interpreter then runs the install script
// without a shell, in its own process group; pip runs with `--no-index --no-deps
// --no-build-isolation` (an sdist is built with the setuptools the interpreter already has; nothing
// is downloaded) and
// `--target`. `--target` also means pip does not touch the interpreter's own site-packages, so
// Debian's externally-managed marker (PEP 668) does not apply: pip skips that check for
// `--target`, `--prefix` and `--root`, and no `--break-system-packages` is needed. The
// environment is the replicas' (the options'), with PIP_NO_INDEX=1, PIP_ROOT_USER_ACTION=ignore
// (no warning that would fill the error tail), and HOME set to the target dir when the server
// has none. Its output (stdout and stderr) is appended to the log.
//
// What pip sees (SpawnSpec::view, applied with a `user`; issue #31): the data directory hidden,
// the target dir alone writable (the package cache's temporary directory: package_cache.h), the
// copies of the package files readable, and /tmp, /var/tmp, /dev/shm and the user's HOME empty and
// its own (run/view_paths.h). A package's build, which runs its code, reaches no other project's
// files.
//
// Stopping: `StageRequest::stop` ends a running install (SIGTERM to its process group, SIGKILL
// after `stop_grace`) and `Stage` returns CANCELLED once it is reaped. With
// `StageRequest::pid_file`, the install's pid is recorded there while it runs, and a recorded
// install still running (a killed server's) is stopped before a new one starts. Under
// `--run-as` (a view) the install also dies with this process (spawn.h), recorded or not: the
// thread that calls `Stage` waits for it to the end.
//
// Thread-safe: `Stage` may run for several jobs at once. It waits for its own pip child only
// (by pid), so it coexists with `ProcessLauncher`.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "run/local/spawn.h"
#include "run/run_as.h"
#include "run/stager.h"

namespace trainyard::run::local {

struct PipStagerOptions {
  int timeout_seconds = 600;  // pip is killed (its whole process group) after this; 0: no limit
  // A stopped install (`StageRequest::stop`, or a recorded one) gets SIGTERM, then SIGKILL after
  // this.
  std::chrono::milliseconds stop_grace{5000};
  int error_tail_lines = 12;               // non-empty lines of pip's output quoted in a failure
  std::optional<Environment> environment;  // pip's base environment; nullopt: this process's
  // Set: pip runs with this user's ids, as the trainers do (a package's build runs its code).
  std::optional<RunAs> user;
  // Set: a local package's real path (symbolic links resolved) must lie below one of these
  // directories' (validate/local_packages.h checked the path as given at submit).
  std::optional<std::vector<std::string>> package_dirs;
  // The data directory (absolute), hidden from pip (see the header); "" hides nothing.
  std::string data_dir;
};

class PipStager final : public Stager {
 public:
  explicit PipStager(PipStagerOptions options = {}) : options_(std::move(options)) {}

  Status Stage(const StageRequest& request) override;

 private:
  PipStagerOptions options_;
};

// Stops the install recorded in `pid_file` (`StageRequest::pid_file`) when it still runs: a
// process whose command line runs the install script (so a reused pid is left alone) and its
// process group get SIGTERM, then SIGKILL after `grace`; returns once it has exited, then removes
// the file. Nothing for an empty path, no file or no such install. UNAVAILABLE when it survives
// SIGKILL for seconds.
Status StopRecordedInstall(const std::string& pid_file, std::chrono::milliseconds grace);

}  // namespace trainyard::run::local
