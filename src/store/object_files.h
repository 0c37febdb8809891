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
#include "os/dir.h"
#include "os/file_handle.h"
#include "os/file_status.h"
#include "store/object_glob.h"

namespace trainyard::store::internal {

// What identifies one version of a file: a change by plain file IO changes one of these.
struct FileStat {
  std::int64_t size = 0;
  std::int64_t mtime_ns = 0;
  std::int64_t inode = 0;

  friend bool operator==(const FileStat&, const FileStat&) = default;
};

// The FileStat of `info`.
FileStat StatOf(const os::FileStatus& info);

// An error of os/'s file effects as the store answers it: UNAVAILABLE with its message, or
// RESOURCE_EXHAUSTED as it is for a full disk.
Status StoreIoError(const Status& os_error);

// The bucket's directory, opened without following a link (it is `<root>/<bucket>`; the root is
// the store's own, but the bucket's entries may be written by its project's jobs). Every object
// is reached beneath it (os/dir.h): no link is followed at any depth, so a directory swapped for
// a link between two calls never leads outside the bucket.
Result<os::Dir> OpenBucketDir(const std::string& bucket_dir);

// The regular file `name` beneath `bucket` when it exists and no part of its path is a
// symbolic link; nullopt otherwise.
std::optional<FileStat> StatObjectFile(const os::Dir& bucket, std::string_view name);

// The same file opened for reading, with its stat (taken from the descriptor).
struct OpenedObject {
  os::File file;
  FileStat stat;
};
std::optional<OpenedObject> OpenObjectFile(const os::Dir& bucket, std::string_view name);

// The directory holding `name`'s file (the bucket's own for a name without "/"), opened beneath
// `bucket` (nullopt when missing or a link), and the file's last component.
std::optional<os::Dir> OpenParentDir(const os::Dir& bucket, std::string_view name);
std::string LeafName(std::string_view name);

// Makes `name` writable beneath `bucket` (the directory of the bucket named `bucket_name`):
// creates the missing parent directories (never following a link) and removes an empty
// directory standing where the file goes; returns the parent directory. FAILED_PRECONDITION
// when a parent is a file or a link (an object "a" when writing "a/b") or the target is a
// directory holding files ("a/b" exists when writing "a"); UNAVAILABLE on IO errors.
Result<os::Dir> PrepareObjectPath(const os::Dir& bucket, std::string_view bucket_name,
                                  std::string_view name);

// True when the directory `dir` holds anything but directories anywhere below it (a bucket that
// is not empty; a link counts).
bool HoldsFiles(const os::Dir& dir);

// A path in `scratch_dir` that no other call of this process returns: "<tag>-<pid>-<n>".
std::string UniqueScratchPath(const std::string& scratch_dir, std::string_view tag);

// Creates `path` (which must not exist) holding `data`, flushed to disk.
Status WriteNewFile(const std::string& path, std::string_view data);
// Appends the bytes of `source` from `offset` on to `target` (a scratch file, created when
// missing, never through a link) and flushes `target` to disk.
Status AppendFileTail(const std::string& source, std::int64_t offset, const std::string& target);
// The same from the open file `source`.
Status AppendFileTail(const os::File& source, std::int64_t offset, const std::string& target);
// Flushes a file's data to disk.
Status SyncPath(const std::string& path);
// Renames `source` to `leaf` in the directory `dir` (replacing a file or link there, never
// following one); across file systems, copies through `scratch_dir` first and then removes
// `source` (os::MoveFileInto).
Status MoveFile(const std::string& source, const os::Dir& dir, const std::string& leaf,
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

// Which objects a walk lists: ListObjectsRequest's filters.
struct WalkFilter {
  std::string_view prefix;
  std::string_view delimiter;
  std::string_view start_offset;     // names >= it
  std::string_view end_offset;       // names < it, unless empty
  const ObjectGlob* glob = nullptr;  // names it matches, unless null
};

// Walks the directory `bucket` in byte order of object names, as GCS lists: only names
// starting with `filter.prefix`, within its offsets and matching its glob; with a delimiter, a
// name holding it after the prefix is folded into its common prefix (up to and including the
// delimiter); only entries after `after` (the last entry of the previous page); at most
// `max_entries` entries. Unreadable directories are skipped, and so are links (each directory is
// opened without following a link from its parent).
TreePage WalkObjects(const os::Dir& bucket, const WalkFilter& filter, std::string_view after,
                     int max_entries);

}  // namespace trainyard::store::internal
