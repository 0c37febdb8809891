// A directory held open (`os::Dir`), and every entry below it reached through its descriptor
// without following a link: where a job can write (its bucket, its job directory), a link or a
// directory swapped for one between two calls never leads this process outside (issue #31,
// os/no_follow.h). Paths given to a Dir's methods are relative to it: `relative` may hold
// several components, none of them a link, "..", "." or empty, and never starts with "/";
// `name` is one component. Errors as `IoError` (os/io_error.h), naming the entry; a `name` that
// is not one component is INVALID_ARGUMENT. One owner at a time; its methods are safe from
// several threads.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "os/file_handle.h"
#include "os/file_status.h"
#include "os/unique_fd.h"

namespace trainyard::os {

// One entry of a directory, described without following a link.
struct DirEntry {
  std::string name;
  FileStatus info;
};

class Dir {
 public:
  // The directory at `path`, not through a link as its last component (the directories above it
  // are trusted).
  static Result<Dir> Open(const std::string& path);
  // The same, first made with `permissions` (before the umask) when missing.
  static Result<Dir> OpenOrMake(const std::string& path, std::uint32_t permissions);

  Dir(Dir&&) noexcept = default;
  Dir& operator=(Dir&&) noexcept = default;

  // The path errors name.
  const std::string& path() const { return path_; }
  // A second descriptor of this directory.
  Result<Dir> Reopen() const;

  // The directory `relative` beneath this one.
  Result<Dir> OpenDir(std::string_view relative) const;
  // The directory `name` in this one, made with `permissions` when missing. FAILED_PRECONDITION
  // when it is a link or anything but a directory. Its errors and MakeDirs' name the entry
  // relative to this directory only ("out is a symbolic link, which is never followed"): a job's
  // failure quotes them, and the server's own paths are not the job's business.
  Result<Dir> MakeDir(const std::string& name, std::uint32_t permissions) const;
  // `MakeDir` for each component of `relative` in turn; the last one. INVALID_ARGUMENT for an
  // empty, "." or ".." component or a leading "/".
  Result<Dir> MakeDirs(std::string_view relative, std::uint32_t permissions) const;
  // The regular file `relative` beneath this one (os/file_handle.h's `OpenMode`).
  Result<File> OpenFile(std::string_view relative, OpenMode mode,
                        std::uint32_t permissions = 0644) const;

  // The entry `relative` beneath this one; a link as its last component is described (kSymlink),
  // never followed.
  Result<FileStatus> Stat(std::string_view relative) const;
  // This directory itself.
  Result<FileStatus> Info() const;
  // Sets this directory's permission bits (07777).
  Status SetPermissions(std::uint32_t mode) const;
  // The entries but "." and "..", in no particular order.
  Result<std::vector<DirEntry>> List() const;

  // Renames the entry `from` to `to` in `target` (replacing a file or link there, never following
  // one).
  Status Rename(const std::string& from, const Dir& target, const std::string& to) const;
  // Removes the entry `name` (a file or a link, not a directory).
  Status Remove(const std::string& name) const;
  // Removes the entry `name` and, when it is a directory, everything below it, never following
  // a link; OK when there is none.
  Status RemoveAll(const std::string& name) const;
  // Flushes the directory (its entries: a rename or a new file in it) to disk.
  Status Sync() const;

 private:
  friend Status MoveFileInto(const std::string& source, const Dir& dir, const std::string& leaf,
                             const std::string& scratch_dir);
  Dir(std::string path, UniqueFd fd) : path_(std::move(path)), fd_(std::move(fd)) {}
  // `relative` as errors name it: below path().
  std::string Shown(std::string_view relative) const;
  // INVALID_ARGUMENT unless `name` is one component.
  Status CheckName(std::string_view name) const;

  std::string path_;
  UniqueFd fd_;
};

// Removes the file (or link) at `path`, whose directories are trusted.
Status RemoveFile(const std::string& path);

}  // namespace trainyard::os
