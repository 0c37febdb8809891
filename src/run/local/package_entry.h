// Who owns a package cache entry (run/local/package_cache.h) while it is installed and once it
// is published (issue #31: "the package cache is written by the server, never writable by jobs
// afterwards").
//
// The server creates the install's temporary directory; with a run-as user it hands just that
// directory to the user, so the installer (pip, running as the user in a view that shows only
// it: pip_stager.h) can write nothing else of the cache. Once the install is done the server
// seals the tree before the entry gets its manifest and its name: every file and directory
// becomes the server's (chown to the server's user and the run-as user's group, so the user can
// still read it), without write access for group and others and without set-id or sticky bits
// (a set-user-id file the job left would otherwise become the server's: root's). Reading stays
// possible for the group: what the owner may read and, for directories and executables, pass
// or run. The server may always read, and write directories (it removes evicted entries).
//
// Chowning the tree, not only taking write access away, is the choice because a user keeps
// what it owns: it could chmod its files writable again. The replicas' views also show entries
// read-only (control/job_view.h), which alone would not stop a process outside a view.
//
// Sealing refuses (FAILED_PRECONDITION naming the path) what an installer never leaves and a
// job could use against the server: a regular file with more than one link (a hard link to a
// file elsewhere, which chown would hand to the server too), anything but regular files,
// directories and symbolic links, and trees deeper than 128 directories. Links are changed
// themselves (their owner), never followed.
#pragma once

#include <optional>
#include <string>

#include "base/status.h"
#include "run/run_as.h"

namespace trainyard::run::local {

// Creates `dir` (mode 0700) for an install: with `user`, owned by that user.
Status CreateInstallDir(const std::string& dir, const std::optional<RunAs>& user);

// Seals the finished install `dir` as the header says: with `user`, everything is chowned to
// this process's user and `user->gid`; without (the installer ran as this process), only the
// modes change.
Status SealInstall(const std::string& dir, const std::optional<RunAs>& user);

}  // namespace trainyard::run::local
