// Objects as plain files under a bucket's directory, internal to store/: resolving a name to its
// file without following symbolic links, making room for a new object, durable writes through a
// scratch directory, and the ordered walk behind listings.
//
// Names reaching these functions have passed `CheckObjectName`. Symbolic links and special files
// under a bucket are never objects (neither listed nor read), and neither are files whose name is
// not a valid object name; so nothing outside the bucket's directory is reachable through it.
// Thread-safe (the file system is the shared state; the store serialises its writes).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace trainyard::store::internal {

// What identifies one version of a file: a change by plain file IO changes one of these.
struct FileStat {
  std::int64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t inode = 0;

  friend bool operator==(const FileStat&, const FileStat&) = default;
};

// The regular file `<bucket_dir>/<name>` when it exists and no part of its path is a symbolic
// link; nullopt otherwise.
std::optional<FileStat> StatObjectFile(const std::string& bucket_dir, std::string_view name);

// Makes `<bucket_dir>/<name>` writable: creates the missing parent directories and removes an
// empty directory standing where the file goes. FAILED_PRECONDITION when a parent is a file (an
// object "a" when writing "a/b") or the target is a directory holding files ("a/b" exists when
// writing "a"); UNAVAILABLE on IO errors.
Status PrepareObjectPath(const std::string& bucket_dir, std::string_view bucket,
                         std::string_view name);

// True when `dir` holds a regular file anywhere below it (a bucket that is not empty).
bool HoldsFiles(const std::string& dir);

// A path in `scratch_dir` that no other call of this process returns: "<tag>-<pid>-<n>".
std::string UniqueScratchPath(const std::string& scratch_dir, std::string_view tag);

// Creates `path` (which must not exist) holding `data`, flushed to disk.
Status WriteNewFile(const std::string& path, std::string_view data);
// Appends the bytes of `source` from `offset` on to `target` and flushes `target` to disk.
Status AppendFileTail(const std::string& source, std::int64_t offset, const std::string& target);
// Flushes a file's data, or a directory's entries, to disk.
Status SyncPath(const std::string& path);
// Renames `source` to `target` (replacing it); across file systems, copies through
// `scratch_dir` first and then removes `source`.
Status MoveFile(const std::string& source, const std::string& target,
                const std::string& scratch_dir);

// One entry of a listing: an object (with its file's stat) or a common prefix.
struct TreeEntry {
  std::string name;
  bool is_prefix = false;
  FileStat stat;
};

struct TreePage {
  std::vector<TreeEntry> entries;  // in byte order of `name`
  bool more = false;               // entries after the last one exist
};

// Walks `bucket_dir` in byte order of object names, as GCS lists: only names starting with
// `prefix`; with a `delimiter`, a name holding it after the prefix is folded into its common
// prefix (up to and including the delimiter); only entries after `after` (the last entry of the
// previous page); at most `max_entries` entries. Unreadable directories are skipped.
TreePage WalkObjects(const std::string& bucket_dir, std::string_view prefix,
                     std::string_view delimiter, std::string_view after, int max_entries);

}  // namespace trainyard::store::internal
