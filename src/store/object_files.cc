#include "store/object_files.h"

#include <utility>
#include <vector>

#include <fmt/format.h>

#include "os/atomic_file.h"

namespace trainyard::store::internal {

FileStat StatOf(const os::FileStatus& info) {
  return FileStat{
      .size = info.size, .mtime_ns = info.mtime_ns, .inode = static_cast<std::int64_t>(info.inode)};
}

Status StoreIoError(const Status& os_error) {
  if (os_error.code() == Code::kResourceExhausted) {
    return os_error;
  }
  return Status::Unavailable(os_error.message());
}

Result<os::Dir> OpenBucketDir(const std::string& bucket_dir) {
  Result<os::Dir> dir = os::Dir::Open(bucket_dir);
  if (!dir.ok()) {
    return StoreIoError(dir.status());
  }
  return dir;
}

std::optional<FileStat> StatObjectFile(const os::Dir& bucket, std::string_view name) {
  Result<os::FileStatus> info = bucket.Stat(name);
  if (!info.ok() || !info->regular()) {
    return std::nullopt;
  }
  return StatOf(*info);
}

std::optional<OpenedObject> OpenObjectFile(const os::Dir& bucket, std::string_view name) {
  // A FIFO planted there is opened at once (and refused), never waited on (os/file_handle.h).
  Result<os::File> file = bucket.OpenFile(name, os::OpenMode::kRead);
  Result<os::FileStatus> info = file.ok() ? file->Info() : Result<os::FileStatus>(file.status());
  if (!info.ok()) {
    return std::nullopt;
  }
  return OpenedObject{.file = *std::move(file), .stat = StatOf(*info)};
}

std::optional<os::Dir> OpenParentDir(const os::Dir& bucket, std::string_view name) {
  const std::size_t slash = name.rfind('/');
  Result<os::Dir> dir =
      slash == std::string_view::npos ? bucket.Reopen() : bucket.OpenDir(name.substr(0, slash));
  return dir.ok() ? std::optional<os::Dir>(*std::move(dir)) : std::nullopt;
}

std::string LeafName(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  return std::string(slash == std::string_view::npos ? name : name.substr(slash + 1));
}

Result<os::Dir> PrepareObjectPath(const os::Dir& bucket, std::string_view bucket_name,
                                  std::string_view name) {
  Result<os::Dir> parent = bucket.Reopen();
  if (!parent.ok()) {
    return StoreIoError(parent.status());
  }
  std::size_t start = 0;
  for (std::size_t slash = name.find('/'); slash != std::string_view::npos;
       start = slash + 1, slash = name.find('/', start)) {
    Result<os::Dir> next = parent->MakeDir(std::string(name.substr(start, slash - start)), 0755);
    if (!next.ok() && next.status().code() == Code::kFailedPrecondition) {
      return Status::FailedPrecondition(
          fmt::format("Cannot write object {}/{}: {}/{} is an object, and a name cannot be both "
                      "an object and a folder here.",
                      bucket_name, name, bucket_name, name.substr(0, slash)));
    }
    if (!next.ok()) {
      return Status::Unavailable(fmt::format("cannot create the folder {}/{}: {}", bucket_name,
                                             name.substr(0, slash), next.status().message()));
    }
    parent = *std::move(next);
  }
  const std::string leaf(name.substr(start));
  if (Result<os::FileStatus> info = parent->Stat(leaf); info.ok() && info->directory()) {
    Result<os::Dir> dir = parent->OpenDir(leaf);
    if (!dir.ok() || HoldsFiles(*dir)) {
      return Status::FailedPrecondition(
          fmt::format("Cannot write object {}/{}: objects named {}/... exist, and a name "
                      "cannot be both an object and a folder here.",
                      bucket_name, name, name));
    }
    if (Status removed = parent->RemoveAll(leaf); !removed.ok()) {
      return StoreIoError(removed);
    }
  }
  return parent;
}

bool HoldsFiles(const os::Dir& dir) {
  Result<std::vector<os::DirEntry>> entries = dir.List();
  if (!entries.ok()) {
    return false;  // as an empty one: what cannot be read is not removed either
  }
  for (const os::DirEntry& entry : *entries) {
    if (!entry.info.directory()) {
      return true;
    }
    Result<os::Dir> sub = dir.OpenDir(entry.name);
    if (!sub.ok() || HoldsFiles(*sub)) {
      return true;  // swapped for something else meanwhile, or unreadable: not known empty
    }
  }
  return false;
}

std::string UniqueScratchPath(const std::string& scratch_dir, std::string_view tag) {
  return scratch_dir + "/" + os::UniqueName(tag);
}

Status WriteNewFile(const std::string& path, std::string_view data) {
  Status written = os::WriteNewFile(path, data);
  return written.ok() ? written : StoreIoError(written);
}

Status AppendFileTail(const std::string& source, std::int64_t offset, const std::string& target) {
  Result<os::File> in = os::File::Open(source, os::OpenMode::kRead);
  if (!in.ok()) {
    return StoreIoError(in.status());
  }
  return AppendFileTail(*in, offset, target);
}

Status AppendFileTail(const os::File& source, std::int64_t offset, const std::string& target) {
  Result<os::File> out = os::File::Open(target, os::OpenMode::kAppend);
  Status copied =
      out.ok() ? os::CopyTail(source, static_cast<std::uint64_t>(offset), *out) : out.status();
  if (copied.ok()) {
    copied = out->Sync();
  }
  return copied.ok() ? copied : StoreIoError(copied);
}

Status SyncPath(const std::string& path) {
  Result<os::File> file = os::File::Open(path, os::OpenMode::kRead);
  Status synced = file.ok() ? file->Sync() : file.status();
  return synced.ok() ? synced : StoreIoError(synced);
}

Status MoveFile(const std::string& source, const os::Dir& dir, const std::string& leaf,
                const std::string& scratch_dir) {
  Status moved = os::MoveFileInto(source, dir, leaf, scratch_dir);
  return moved.ok() ? moved : StoreIoError(moved);
}

}  // namespace trainyard::store::internal
