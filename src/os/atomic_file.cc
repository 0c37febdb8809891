#include "os/atomic_file.h"

#include <atomic>
#include <cerrno>

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include "os/file_handle.h"
#include "os/io_error.h"

namespace trainyard::os {

std::string UniqueName(std::string_view tag) {
  static std::atomic<std::uint64_t> counter{0};
  return fmt::format("{}-{}-{}", tag, ::getpid(), counter.fetch_add(1));
}

Status WriteNewFile(const std::string& path, std::string_view bytes, std::uint32_t permissions) {
  Result<File> file = File::Open(path, OpenMode::kCreateNew, permissions);
  if (!file.ok()) {
    return file.status();
  }
  TY_RETURN_IF_ERROR(file->Write(bytes));
  return file->Sync();
}

Status PublishNewFile(const std::string& path, std::string_view bytes, std::uint32_t permissions) {
  const std::string scratch = path + ".new-" + UniqueName("tmp");
  Status published = WriteNewFile(scratch, bytes, permissions);
  if (published.ok() && ::link(scratch.c_str(), path.c_str()) != 0) {
    published = IoError("link " + scratch + " as", path, errno);
  }
  (void)RemoveFile(scratch);  // gone already when it could not be made
  return published;
}

Status MoveFileInto(const std::string& source, const Dir& dir, const std::string& leaf,
                    const std::string& scratch_dir) {
  TY_RETURN_IF_ERROR(dir.CheckName(leaf));
  if (::renameat(AT_FDCWD, source.c_str(), dir.fd_.get(), leaf.c_str()) == 0) {
    return {};
  }
  if (errno != EXDEV) {
    return IoError("move into place", source, errno);
  }
  const std::string copy = scratch_dir + "/" + UniqueName("copy");
  Status copied = [&]() -> Status {
    Result<File> in = File::Open(source, OpenMode::kRead);
    if (!in.ok()) {
      return in.status();
    }
    Result<File> out = File::Open(copy, OpenMode::kCreateNew);
    if (!out.ok()) {
      return out.status();
    }
    TY_RETURN_IF_ERROR(CopyTail(*in, 0, *out));
    TY_RETURN_IF_ERROR(out->Sync());
    if (::renameat(AT_FDCWD, copy.c_str(), dir.fd_.get(), leaf.c_str()) != 0) {
      return IoError("move into place", dir.Shown(leaf), errno);
    }
    return {};
  }();
  if (!copied.ok()) {
    (void)RemoveFile(copy);
    return copied;
  }
  (void)RemoveFile(source);
  return {};
}

}  // namespace trainyard::os
