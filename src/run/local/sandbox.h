// A job's view of the server's files (run/file_view.h) made real: a mount namespace in which
// the hidden directory is an empty read-only tmpfs, each private directory the job's own (an
// empty tmpfs owned by the job's user, or the job's directory below the view's private root), and
// the view's paths are shown again at their places, also where a private directory covered them
// (bind mounts, read-only ones remounted so; a data directory under /tmp is shown that way). Used
// between fork and exec by the replica supervisor's init (run/local/replica_init.h) and by
// `SpawnProcess` for pip (run/local/spawn.h), both as root before they switch to the job's user.
// Internal to run/.
//
// Everything that allocates happens in `PrepareView`, before the fork; `EnterView` makes only
// system calls, so a child of a threaded process may call it. A path of the view that is missing,
// or whose last component is a symbolic link, is left out (the job sees nothing there): the view
// never follows a link to decide what a job may reach. The caller chdirs after entering: a working
// directory kept from before would still reach the hidden tree's real contents through "..".
//
// Where the mounts go: root makes the mount points and mounts onto them in a tree where the job
// may already have written (its private /tmp, shared by its replicas, is shown before what lies
// below it), so each mount point is reached from "/" one component at a time without following
// a link (missing directories made with `mkdirat`), and mounted onto through its descriptor
// (/proc/self/fd/N). A link on the way fails the view with ELOOP: root never creates or mounts
// where a link the job planted points. Links in the operator's part of the paths (a data
// directory or HOME reached through a link) are resolved when the view is prepared, outside
// the job's namespace: each covered directory's real path is where its cover goes, and what the
// view shows below a covered directory goes below that real path.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "run/file_view.h"
#include "run/run_as.h"

namespace trainyard::run::local {

class PreparedView {
 public:
  // `user` owns the private directories (root's when nullopt).
  PreparedView(const FileView& view, const std::optional<RunAs>& user);

  // An empty tmpfs over a directory: the hidden one (made read-only once the binds are in
  // place) or a private one.
  struct Cover {
    std::string path;  // the real path of the view's (links resolved when it exists)
    std::string options;
    bool hidden = false;
    std::vector<std::string> names;  // `path`'s components, outermost first
    std::string source;  // set: bound from this directory of the job's (made 01777) instead
    int fd = -1;         // EnterView's O_PATH descriptor of the source
    int mounted = -1;    // EnterView's O_PATH descriptor of the hidden cover, once mounted
  };
  struct Bind {
    std::string path;  // the source, as the view names it
    bool read_only = false;
    // The mount point's components, outermost first: `path` below the real path of the cover
    // it lies under, or its parent's real path and its last component.
    std::vector<std::string> names;
    std::size_t length = 0;  // of the mount point's path: the order of the binds
    int fd = -1;             // EnterView's O_PATH descriptor of the source
  };

 private:
  friend int EnterView(PreparedView& view) noexcept;
  // EnterView's work once in the new namespace; returns 0 or an errno.
  static int Show(PreparedView& view) noexcept;

  std::vector<std::string> private_parents_;  // the private root and its parents to make (0700)
  std::string private_root_;                  // "": none
  std::string ipc_namespace_;                 // where the job's is mounted; "": one of its own
  std::vector<Cover> covers_;                 // an outer one before what lies under it
  std::vector<Bind> binds_;                   // likewise
};

// In the job's IPC namespace (run/local/ipc_namespace.h) and a new mount namespace of the calling
// process (no mount propagates to or from the host), `view` as the header says. Returns 0, or
// the errno of the step that failed. Async-signal-safe.
int EnterView(PreparedView& view) noexcept;

// A new /proc for the calling process's PID namespace, mounted over the old one (in a mount
// namespace of its own). Returns 0 or an errno. Async-signal-safe.
int MountProc() noexcept;

}  // namespace trainyard::run::local
