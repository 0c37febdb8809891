// Opening files where someone less trusted than this process can create entries (a job's
// working and output directories, its metrics files, buckets), so that a symbolic link planted
// there never redirects this process's read or write to a file of the link's choosing (issue
// #31: a root server that follows such a link overwrites or discloses root's files).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include <sys/types.h>

#include "base/status.h"
#include "os/unique_fd.h"

namespace trainyard::os {

// open(2) of `path` with O_NOFOLLOW | O_CLOEXEC added: a symbolic link as the last component
// fails (ELOOP) instead of being followed. The directories above `path` are trusted: use it where
// none of them is writable by anyone else. Errors (all of this file's: `IoError`, os/io_error.h)
// name the path and the system's reason, with the code of the errno.
Result<UniqueFd> OpenNoFollow(const std::string& path, int flags, mode_t mode = 0);

// `relative` opened below the directory `dir_fd`, with no symbolic link in any component and
// never above `dir_fd` ("..", an absolute path): openat2's RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS,
// or one component at a time with O_NOFOLLOW where the kernel has no openat2 (before 5.6).
// NOT_FOUND when an entry is missing; FAILED_PRECONDITION for a link, a way out of `dir_fd` or a
// file where a directory should be; the rest as `IoError`.
Result<UniqueFd> OpenBeneath(int dir_fd, std::string_view relative, int flags, mode_t mode = 0);

// The directory `name` (one component) in `dir_fd`, created with `mode` (before the umask) when
// missing, opened O_RDONLY | O_DIRECTORY without following a link. FAILED_PRECONDITION naming
// `name` when it is a symbolic link or anything but a directory; other errors as `IoError`.
Result<UniqueFd> OpenOrMakeDirAt(int dir_fd, const std::string& name, mode_t mode);

// `OpenOrMakeDirAt` for each component of `relative` in turn, from `dir_fd`: the last one's
// descriptor; errors name the components up to the one that failed. Empty, "." and ".."
// components are refused (INVALID_ARGUMENT), as is a leading "/".
Result<UniqueFd> MakeDirsBeneath(int dir_fd, std::string_view relative, mode_t mode);

// Writes `text` to `path` through a new temporary file beside it (O_EXCL: never a file or link
// that was there), then renames it over `path`: a reader sees the old text or the new, and a
// link at `path` is replaced, not followed. `mode` is the new file's (before the umask).
Status ReplaceFileNoFollow(const std::string& path, std::string_view text, mode_t mode = 0644);

// The bytes of the regular file at `path` when it is one of at most `max_bytes`, opened without
// following a link as its last component; nullopt for a missing file, a link, a directory, a
// device or FIFO (which could block), or a larger file.
std::optional<std::string> ReadRegularFile(const std::string& path, std::size_t max_bytes);

}  // namespace trainyard::os
