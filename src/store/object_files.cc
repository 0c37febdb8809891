#include "store/object_files.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <utility>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/disk_full.h"
#include "os/no_follow.h"
#include "os/unique_fd.h"

namespace trainyard::store::internal {
namespace {

constexpr std::size_t kCopyChunk = std::size_t{1} << 20;

Status IoError(std::string_view what, const std::string& path, int error) {
  if (IsDiskFull(error)) {
    return DiskFullError(fmt::format("{} {}", what, path), std::strerror(error));
  }
  return Status::Unavailable(fmt::format("cannot {} {}: {}", what, path, std::strerror(error)));
}

Status WriteAll(int fd, const char* data, std::size_t size, const std::string& path) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return IoError("write", path, errno);
    }
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return {};
}

// Copies the open file `in` from `offset` to the end onto the open descriptor `out`.
Status CopyTail(int in, const std::string& source, std::int64_t offset, int out,
                const std::string& target) {
  std::vector<char> buffer(kCopyChunk);
  auto position = static_cast<off_t>(offset);
  while (true) {
    const ssize_t n = ::pread(in, buffer.data(), buffer.size(), position);
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return IoError("read", source, errno);
    }
    if (n == 0) {
      return {};
    }
    TY_RETURN_IF_ERROR(WriteAll(out, buffer.data(), static_cast<std::size_t>(n), target));
    position += n;
  }
}

}  // namespace

FileStat StatOf(const struct stat& st) {
  return FileStat{.size = st.st_size,
                  .mtime_ns = std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec,
                  .inode = static_cast<std::int64_t>(st.st_ino)};
}

std::vector<std::pair<std::string, struct stat>> DirectoryEntries(int dir_fd) {
  std::vector<std::pair<std::string, struct stat>> entries;
  const int fd = ::openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* handle = fd < 0 ? nullptr : ::fdopendir(fd);
  if (handle == nullptr) {
    if (fd >= 0) {
      ::close(fd);
    }
    return entries;
  }
  while (const dirent* entry = ::readdir(handle)) {
    const std::string_view name = entry->d_name;
    struct stat st {};
    if (name != "." && name != ".." &&
        ::fstatat(fd, entry->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
      entries.emplace_back(std::string(name), st);
    }
  }
  ::closedir(handle);
  return entries;
}

Result<os::UniqueFd> OpenBucketDir(const std::string& bucket_dir) {
  os::UniqueFd fd(::open(bucket_dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    return IoError("open the bucket directory", bucket_dir, errno);
  }
  return fd;
}

std::optional<FileStat> StatObjectFile(int bucket_fd, std::string_view name) {
  Result<os::UniqueFd> fd = os::OpenBeneath(bucket_fd, name, O_PATH);
  struct stat st {};
  if (!fd.ok() || ::fstat(fd->get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  return StatOf(st);
}

std::optional<OpenedObject> OpenObjectFile(int bucket_fd, std::string_view name) {
  // O_NONBLOCK: a FIFO planted there is opened at once (and refused below), never waited on.
  Result<os::UniqueFd> fd = os::OpenBeneath(bucket_fd, name, O_RDONLY | O_NONBLOCK | O_NOCTTY);
  struct stat st {};
  if (!fd.ok() || ::fstat(fd->get(), &st) != 0 || !S_ISREG(st.st_mode)) {
    return std::nullopt;
  }
  return OpenedObject{.fd = *std::move(fd), .stat = StatOf(st)};
}

std::optional<os::UniqueFd> OpenParentDir(int bucket_fd, std::string_view name) {
  const std::size_t slash = name.rfind('/');
  if (slash == std::string_view::npos) {
    os::UniqueFd fd(::openat(bucket_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    return fd.get() < 0 ? std::nullopt : std::optional<os::UniqueFd>(std::move(fd));
  }
  Result<os::UniqueFd> fd =
      os::OpenBeneath(bucket_fd, name.substr(0, slash), O_RDONLY | O_DIRECTORY);
  return fd.ok() ? std::optional<os::UniqueFd>(*std::move(fd)) : std::nullopt;
}

std::string LeafName(std::string_view name) {
  const std::size_t slash = name.rfind('/');
  return std::string(slash == std::string_view::npos ? name : name.substr(slash + 1));
}

Result<os::UniqueFd> PrepareObjectPath(int bucket_fd, std::string_view bucket,
                                       std::string_view name) {
  os::UniqueFd parent(::openat(bucket_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (parent.get() < 0) {
    return IoError("open the bucket", std::string(bucket), errno);
  }
  std::size_t start = 0;
  for (std::size_t slash = name.find('/'); slash != std::string_view::npos;
       start = slash + 1, slash = name.find('/', start)) {
    Result<os::UniqueFd> next =
        os::OpenOrMakeDirAt(parent.get(), std::string(name.substr(start, slash - start)), 0755);
    if (!next.ok() && next.status().code() == Code::kFailedPrecondition) {
      return Status::FailedPrecondition(
          fmt::format("Cannot write object {}/{}: {}/{} is an object, and a name cannot be both "
                      "an object and a folder here.",
                      bucket, name, bucket, name.substr(0, slash)));
    }
    if (!next.ok()) {
      return Status::Unavailable(fmt::format("cannot create the folder {}/{}: {}", bucket,
                                             name.substr(0, slash), next.status().message()));
    }
    parent = *std::move(next);
  }
  const std::string leaf(name.substr(start));
  struct stat st {};
  if (::fstatat(parent.get(), leaf.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode)) {
    os::UniqueFd dir(
        ::openat(parent.get(), leaf.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (dir.get() < 0 || HoldsFiles(dir.get())) {
      return Status::FailedPrecondition(
          fmt::format("Cannot write object {}/{}: objects named {}/... exist, and a name "
                      "cannot be both an object and a folder here.",
                      bucket, name, name));
    }
    TY_RETURN_IF_ERROR(RemoveTree(parent.get(), leaf));
  }
  return parent;
}

bool HoldsFiles(int dir_fd) {
  for (const auto& [name, st] : DirectoryEntries(dir_fd)) {
    if (!S_ISDIR(st.st_mode)) {
      return true;
    }
    os::UniqueFd sub(
        ::openat(dir_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (sub.get() < 0 || HoldsFiles(sub.get())) {
      return true;  // swapped for something else meanwhile, or unreadable: not known empty
    }
  }
  return false;
}

Status RemoveTree(int parent_fd, const std::string& name) {
  if (::unlinkat(parent_fd, name.c_str(), 0) == 0 || errno == ENOENT) {
    return {};
  }
  os::UniqueFd dir(
      ::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
  if (dir.get() < 0) {
    return IoError("remove", name, errno);
  }
  for (const auto& entry : DirectoryEntries(dir.get())) {
    TY_RETURN_IF_ERROR(RemoveTree(dir.get(), entry.first));
  }
  if (::unlinkat(parent_fd, name.c_str(), AT_REMOVEDIR) != 0 && errno != ENOENT) {
    return IoError("remove", name, errno);
  }
  return {};
}

std::string UniqueScratchPath(const std::string& scratch_dir, std::string_view tag) {
  static std::atomic<std::uint64_t> counter{0};
  return fmt::format("{}/{}-{}-{}", scratch_dir, tag, ::getpid(), counter.fetch_add(1));
}

Status WriteNewFile(const std::string& path, std::string_view data) {
  os::UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (fd.get() < 0) {
    return IoError("create", path, errno);
  }
  TY_RETURN_IF_ERROR(WriteAll(fd.get(), data.data(), data.size(), path));
  if (::fsync(fd.get()) != 0) {
    return IoError("flush", path, errno);
  }
  return {};
}

Status AppendFileTail(const std::string& source, std::int64_t offset, const std::string& target) {
  os::UniqueFd in(::open(source.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (in.get() < 0) {
    return IoError("read", source, errno);
  }
  return AppendFdTail(in.get(), source, offset, target);
}

Status AppendFdTail(int source_fd, const std::string& source, std::int64_t offset,
                    const std::string& target) {
  os::UniqueFd out(
      ::open(target.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644));
  if (out.get() < 0) {
    return IoError("open", target, errno);
  }
  TY_RETURN_IF_ERROR(CopyTail(source_fd, source, offset, out.get(), target));
  if (::fsync(out.get()) != 0) {
    return IoError("flush", target, errno);
  }
  return {};
}

Status SyncPath(const std::string& path) {
  os::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) {
    return IoError("open", path, errno);
  }
  if (::fsync(fd.get()) != 0) {
    return IoError("flush", path, errno);
  }
  return {};
}

Status MoveFile(const std::string& source, int dir_fd, const std::string& leaf,
                const std::string& scratch_dir, const std::string& shown) {
  if (::renameat(AT_FDCWD, source.c_str(), dir_fd, leaf.c_str()) == 0) {
    return {};
  }
  if (errno != EXDEV) {
    return IoError("move into place", source, errno);
  }
  const std::string copy = UniqueScratchPath(scratch_dir, "copy");
  Status copied = AppendFileTail(source, 0, copy);
  if (copied.ok() && ::renameat(AT_FDCWD, copy.c_str(), dir_fd, leaf.c_str()) != 0) {
    copied = IoError("move into place", shown, errno);
  }
  if (!copied.ok()) {
    ::unlink(copy.c_str());
    return copied;
  }
  ::unlink(source.c_str());
  return {};
}

}  // namespace trainyard::store::internal
