// What a job's processes see of the server's files (issue #31, "each job sees only its own
// project"): the data directory is replaced by an empty read-only directory, and only the paths
// the job may use are shown again, at the same places, each read-write or read-only; some
// directories (/tmp, the job's HOME) are replaced by ones of the job's own. Applied in a
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
  std::vector<std::string> private_dirs;  // each a directory of the job's own
  // Set: the private directories are this directory's subdirectories (tmp, var_tmp, dev_shm,
  // ...: the path with '/' as '_'), made when missing, so that every replica of the job shares
  // them (a file rendezvous in /tmp, NCCL's segments in /dev/shm); "": each process gets empty
  // ones of its own (tmpfs). It is made by the server, root's alone (0700).
  std::string private_root;

  bool operator==(const FileView&) const = default;
};

}  // namespace trainyard::run
