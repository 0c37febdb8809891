#include "os/file_handle.h"

#include <cerrno>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "os/io_error.h"
#include "os/stat_info.h"

namespace trainyard::os {
namespace {

constexpr std::size_t kCopyChunk = std::size_t{1} << 20;

}  // namespace

int File::Flags(OpenMode mode) {
  const int flags = O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
  switch (mode) {
    case OpenMode::kRead:
      return flags | O_RDONLY;
    case OpenMode::kCreateNew:
      return flags | O_WRONLY | O_CREAT | O_EXCL;
    case OpenMode::kAppend:
      return flags | O_WRONLY | O_APPEND | O_CREAT;
    case OpenMode::kReadAppend:
      return flags | O_RDWR | O_APPEND | O_CREAT;
  }
  return flags | O_RDONLY;
}

Result<File> File::Adopt(std::string path, UniqueFd fd) {
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    return IoError("describe", path, errno);
  }
  if (!S_ISREG(st.st_mode)) {
    return Status::FailedPrecondition("cannot open " + path + ": not a regular file");
  }
  return File(std::move(path), std::move(fd));
}

Result<File> File::Open(const std::string& path, OpenMode mode, std::uint32_t permissions) {
  UniqueFd fd(::open(path.c_str(), Flags(mode), static_cast<mode_t>(permissions)));
  if (!fd.valid()) {
    return IoError("open", path, errno);
  }
  return Adopt(path, std::move(fd));
}

Result<FileStatus> File::Info() const {
  struct stat st {};
  if (::fstat(fd_.get(), &st) != 0) {
    return IoError("describe", path_, errno);
  }
  return internal::ToFileStatus(st);
}

Result<std::size_t> File::ReadAt(std::uint64_t offset, char* out, std::size_t size) const {
  std::size_t done = 0;
  while (done < size) {
    const ssize_t n =
        ::pread(fd_.get(), out + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) {
      continue;
    }
    if (n < 0) {
      return IoError("read", path_, errno);
    }
    if (n == 0) {
      break;
    }
    done += static_cast<std::size_t>(n);
  }
  return done;
}

Status File::Write(std::string_view bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t wrote = ::write(fd_.get(), bytes.data() + done, bytes.size() - done);
    if (wrote < 0 && errno == EINTR) {
      continue;
    }
    if (wrote <= 0) {
      const int err = wrote < 0 ? errno : EIO;  // no progress, and no error to name
      struct stat st {};
      if (done > 0 && ::fstat(fd_.get(), &st) == 0 && st.st_size >= static_cast<off_t>(done)) {
        // Best effort (cutting a file needs no space): a caller that must never see a torn
        // write checks the file's end when it opens it again, as logs/capture.cc does.
        (void)::ftruncate(fd_.get(), st.st_size - static_cast<off_t>(done));
      }
      return IoError("write", path_, err);
    }
    done += static_cast<std::size_t>(wrote);
  }
  return {};
}

Status File::Sync() {
  if (::fsync(fd_.get()) != 0) {
    return IoError("flush", path_, errno);
  }
  return {};
}

Status CopyTail(const File& from, std::uint64_t offset, File& to) {
  std::vector<char> buffer(kCopyChunk);
  while (true) {
    Result<std::size_t> got = from.ReadAt(offset, buffer.data(), buffer.size());
    if (!got.ok()) {
      return got.status();
    }
    if (*got == 0) {
      return {};
    }
    TY_RETURN_IF_ERROR(to.Write(std::string_view(buffer.data(), *got)));
    offset += *got;
  }
}

}  // namespace trainyard::os
