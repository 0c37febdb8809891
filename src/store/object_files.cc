#include "store/object_files.h"

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/unique_fd.h"

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

// Copies `source` from `offset` to the end onto the open descriptor `out`.
Status CopyTail(const std::string& source, std::int64_t offset, int out,
                const std::string& target) {
  UniqueFd in(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
  if (in.get() < 0) {
    return IoError("read", source, errno);
  }
  std::vector<char> buffer(kCopyChunk);
  auto position = static_cast<off_t>(offset);
  while (true) {
    const ssize_t n = ::pread(in.get(), buffer.data(), buffer.size(), position);
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

std::optional<FileStat> StatObjectFile(const std::string& bucket_dir, std::string_view name) {
  std::string path = bucket_dir;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = name.find('/', start);
    path += '/';
    path += name.substr(start, slash == std::string_view::npos ? slash : slash - start);
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) {
      return std::nullopt;
    }
    if (slash == std::string_view::npos) {
      if (!S_ISREG(st.st_mode)) {
        return std::nullopt;
      }
      return FileStat{
          .size = st.st_size,
          .mtime_ns = std::int64_t{st.st_mtim.tv_sec} * 1'000'000'000 + st.st_mtim.tv_nsec,
          .inode = static_cast<std::int64_t>(st.st_ino)};
    }
    if (!S_ISDIR(st.st_mode)) {
      return std::nullopt;
    }
    start = slash + 1;
  }
}

Status PrepareObjectPath(const std::string& bucket_dir, std::string_view bucket,
                         std::string_view name) {
  std::string path = bucket_dir;
  std::size_t start = 0;
  while (true) {
    const std::size_t slash = name.find('/', start);
    path += '/';
    path += name.substr(start, slash == std::string_view::npos ? slash : slash - start);
    struct stat st {};
    const bool exists = ::lstat(path.c_str(), &st) == 0;
    if (!exists && errno != ENOENT) {
      return IoError("inspect", path, errno);
    }
    if (slash == std::string_view::npos) {
      if (exists && S_ISDIR(st.st_mode)) {
        if (HoldsFiles(path)) {
          return Status::FailedPrecondition(
              fmt::format("Cannot write object {}/{}: objects named {}/... exist, and a name "
                          "cannot be both an object and a folder here.",
                          bucket, name, name));
        }
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
        if (ec) {
          return IoError("remove the empty folder", path, ec.value());
        }
      }
      return {};
    }
    if (exists && !S_ISDIR(st.st_mode)) {
      const std::string_view parent = name.substr(0, slash);
      return Status::FailedPrecondition(
          fmt::format("Cannot write object {}/{}: {}/{} is an object, and a name cannot be both "
                      "an object and a folder here.",
                      bucket, name, bucket, parent));
    }
    if (!exists && ::mkdir(path.c_str(), 0755) != 0 && errno != EEXIST) {
      return IoError("create the folder", path, errno);
    }
    start = slash + 1;
  }
}

bool HoldsFiles(const std::string& dir) {
  std::error_code ec;
  for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end;
       it.increment(ec)) {
    if (!it->is_directory(ec) || it->is_symlink(ec)) {
      return true;
    }
  }
  return false;
}

std::string UniqueScratchPath(const std::string& scratch_dir, std::string_view tag) {
  static std::atomic<std::uint64_t> counter{0};
  return fmt::format("{}/{}-{}-{}", scratch_dir, tag, ::getpid(), counter.fetch_add(1));
}

Status WriteNewFile(const std::string& path, std::string_view data) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
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
  UniqueFd out(::open(target.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (out.get() < 0) {
    return IoError("open", target, errno);
  }
  TY_RETURN_IF_ERROR(CopyTail(source, offset, out.get(), target));
  if (::fsync(out.get()) != 0) {
    return IoError("flush", target, errno);
  }
  return {};
}

Status SyncPath(const std::string& path) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (fd.get() < 0) {
    return IoError("open", path, errno);
  }
  if (::fsync(fd.get()) != 0) {
    return IoError("flush", path, errno);
  }
  return {};
}

Status MoveFile(const std::string& source, const std::string& target,
                const std::string& scratch_dir) {
  if (::rename(source.c_str(), target.c_str()) == 0) {
    return {};
  }
  if (errno != EXDEV) {
    return IoError("move into place", source, errno);
  }
  const std::string copy = UniqueScratchPath(scratch_dir, "copy");
  Status copied = AppendFileTail(source, 0, copy);
  if (copied.ok() && ::rename(copy.c_str(), target.c_str()) != 0) {
    copied = IoError("move into place", copy, errno);
  }
  if (!copied.ok()) {
    ::unlink(copy.c_str());
    return copied;
  }
  ::unlink(source.c_str());
  return {};
}

}  // namespace trainyard::store::internal
