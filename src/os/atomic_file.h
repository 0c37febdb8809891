// Files that appear whole or not at all: a new file written and flushed, a file published under
// a name only when nothing holds it yet, and a finished file moved into its place (across file
// systems too), with the unique scratch names they go through. Errors as `IoError`
// (os/io_error.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "os/dir.h"

namespace trainyard::os {

// "<tag>-<pid>-<n>": a file name no other call in this process returns (and, by the pid, no
// other live process).
std::string UniqueName(std::string_view tag);

// Creates `path` (ALREADY_EXISTS when anything, a link too, is there) holding `bytes`, flushed to
// disk. The directories above it are trusted.
Status WriteNewFile(const std::string& path, std::string_view bytes,
                    std::uint32_t permissions = 0644);

// `path` holding `bytes`, flushed, when nothing is there yet: written to a scratch name beside it
// first and linked into place, so that a reader (or a second writer racing this one) sees no file
// or the whole one. ALREADY_EXISTS, and `path` left as it was, when it exists. The directories
// above it are trusted.
Status PublishNewFile(const std::string& path, std::string_view bytes, std::uint32_t permissions);

// Renames the file `source` (a trusted path) to `leaf` in `dir`, replacing a file or link there
// and never following one. Across file systems, copies it to a new file in `scratch_dir` (on
// `dir`'s file system), flushed, renames that into place and then removes `source`.
Status MoveFileInto(const std::string& source, const Dir& dir, const std::string& leaf,
                    const std::string& scratch_dir);

}  // namespace trainyard::os
