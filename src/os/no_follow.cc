#include "os/no_follow.h"

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <utility>

#include <fcntl.h>
#include <linux/openat2.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "os/file.h"
#include "os/io_error.h"

namespace trainyard::os {
namespace {

// openat2(2), which glibc 2.36 does not wrap; -1 with errno ENOSYS on kernels before 5.6.
int OpenAt2(int dir_fd, const std::string& relative, int flags, mode_t mode) {
  open_how how{};
  how.flags = static_cast<std::uint64_t>(flags) | O_CLOEXEC;
  how.mode = (flags & (O_CREAT | O_TMPFILE)) != 0 ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
  long fd = 0;
  do {
    fd = syscall(SYS_openat2, dir_fd, relative.c_str(), &how, sizeof(how));
  } while (fd < 0 && (errno == EINTR || errno == EAGAIN));
  return static_cast<int>(fd);
}

// The same, a component at a time: each directory with O_NOFOLLOW | O_DIRECTORY, the last with
// O_NOFOLLOW; "..", "." and empty components refused.
Result<UniqueFd> WalkBeneath(int dir_fd, std::string_view relative, int flags, mode_t mode) {
  UniqueFd current;
  int at = dir_fd;
  while (true) {
    const std::size_t slash = relative.find('/');
    const std::string part(relative.substr(0, slash));
    if (part.empty() || part == "." || part == "..") {
      return IoError("open", relative, EXDEV);
    }
    if (slash == std::string_view::npos) {
      const int fd = ::openat(at, part.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
      return fd >= 0 ? Result<UniqueFd>(UniqueFd(fd)) : IoError("open", part, errno);
    }
    const int next = ::openat(at, part.c_str(), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (next < 0) {
      return IoError("open", part, errno);
    }
    current.reset(next);
    at = current.get();
    relative.remove_prefix(slash + 1);
  }
}

// `OpenOrMakeDirAt`, its errors naming `shown` (`name` and the directories above it).
Result<UniqueFd> OpenOrMakeDir(int dir_fd, const std::string& name, const std::string& shown,
                               mode_t mode) {
  constexpr int kFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
  int fd = ::openat(dir_fd, name.c_str(), kFlags);
  if (fd < 0 && errno == ENOENT) {
    if (::mkdirat(dir_fd, name.c_str(), mode) != 0 && errno != EEXIST) {
      return IoError("create the directory", shown, errno);
    }
    fd = ::openat(dir_fd, name.c_str(), kFlags);
  }
  if (fd >= 0) {
    return UniqueFd(fd);
  }
  const int err = errno;
  struct stat st {};
  if (::fstatat(dir_fd, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
    if (S_ISLNK(st.st_mode)) {
      return Status::FailedPrecondition(shown + " is a symbolic link, which is never followed");
    }
    if (!S_ISDIR(st.st_mode)) {
      return Status::FailedPrecondition(shown + " is not a directory");
    }
  }
  return IoError("open", shown, err);
}

}  // namespace

Result<UniqueFd> OpenNoFollow(const std::string& path, int flags, mode_t mode) {
  const int fd = ::open(path.c_str(), flags | O_NOFOLLOW | O_CLOEXEC, mode);
  if (fd < 0) {
    return IoError("open", path, errno);
  }
  return UniqueFd(fd);
}

Result<UniqueFd> OpenBeneath(int dir_fd, std::string_view relative, int flags, mode_t mode) {
  if (relative.empty() || relative.starts_with('/')) {
    return IoError("open", relative, EXDEV);
  }
  const std::string path(relative);
  const int fd = OpenAt2(dir_fd, path, flags, mode);
  if (fd >= 0) {
    return UniqueFd(fd);
  }
  if (errno != ENOSYS) {
    return IoError("open", path, errno);
  }
  return WalkBeneath(dir_fd, relative, flags, mode);
}

Result<UniqueFd> OpenOrMakeDirAt(int dir_fd, const std::string& name, mode_t mode) {
  return OpenOrMakeDir(dir_fd, name, name, mode);
}

Result<UniqueFd> MakeDirsBeneath(int dir_fd, std::string_view relative, mode_t mode) {
  const std::string whole(relative);
  UniqueFd current;
  int at = dir_fd;
  std::string done;
  while (true) {
    const std::size_t slash = relative.find('/');
    const std::string part(relative.substr(0, slash));
    if (part.empty() || part == "." || part == "..") {
      return Status::InvalidArgument("Not a relative path of directories: " + whole);
    }
    done += done.empty() ? part : "/" + part;
    Result<UniqueFd> next = OpenOrMakeDir(at, part, done, mode);
    if (!next.ok()) {
      return next.status();
    }
    current = *std::move(next);
    at = current.get();
    if (slash == std::string_view::npos) {
      return current;
    }
    relative.remove_prefix(slash + 1);
  }
}

Status ReplaceFileNoFollow(const std::string& path, std::string_view text, mode_t mode) {
  static std::atomic<std::uint64_t> counter{0};
  const std::string temporary =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter.fetch_add(1));
  Result<UniqueFd> fd = OpenNoFollow(temporary, O_WRONLY | O_CREAT | O_EXCL, mode);
  if (!fd.ok()) {
    return fd.status();
  }
  if (const int err = WriteFully(fd->get(), text); err != 0) {
    ::unlink(temporary.c_str());
    return IoError("write", temporary, err);
  }
  if (::rename(temporary.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(temporary.c_str());
    return IoError("rename " + temporary + " to", path, err);
  }
  return {};
}

std::optional<std::string> ReadRegularFile(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO planted there returns at once (and is refused below).
  Result<UniqueFd> fd = OpenNoFollow(path, O_RDONLY | O_NONBLOCK);
  struct stat st {};
  if (!fd.ok() || ::fstat(fd->get(), &st) != 0 || !S_ISREG(st.st_mode) ||
      static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return std::nullopt;
  }
  // One byte past the bound, to see a file that grew past it while read.
  std::string text;
  if (ReadAtMost(fd->get(), max_bytes + 1, text) != 0 || text.size() > max_bytes) {
    return std::nullopt;
  }
  return text;
}

}  // namespace trainyard::os
