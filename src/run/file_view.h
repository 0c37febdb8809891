// What a job's processes see of the server's files (issue #31, "each job sees only its own
// project"): the data directory is replaced by an empty read-only directory, and only the paths
// the job may use are shown again, at the same places, each read-write or read-only; some
// directories (/tmp, the job's HOME) are replaced by empty ones of the job's own. Applied in a
// mount namespace of the job's processes (run/local/sandbox.h) when the server runs jobs as
// another user (`serve --run-as`); containers get the same paths as their mounts.
#pragma once

#include <string>
#include <vector>

namespace trainyard::run {

struct FileView {
  std::string hidden;                     // absolute; "" hides nothing
  std::vector<std::string> writable;      // absolute paths shown read-write
  std::vector<std::string> readable;      // absolute paths shown read-only
  std::vector<std::string> private_dirs;  // each an empty directory of the job's own

  bool operator==(const FileView&) const = default;
};

}  // namespace trainyard::run
