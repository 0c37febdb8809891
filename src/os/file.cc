#include "os/file.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <unistd.h>

#include "os/io_error.h"

namespace trainyard::os {

std::optional<std::string> ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

int ReadAtMost(int fd, std::size_t max_bytes, std::string& text) {
  constexpr std::size_t kChunk = 4096;
  std::size_t left = max_bytes;
  while (left > 0) {
    const std::size_t at = text.size();
    text.resize(at + std::min(left, kChunk));
    const ssize_t got = ::read(fd, text.data() + at, text.size() - at);
    const int err = errno;
    text.resize(at + static_cast<std::size_t>(std::max<ssize_t>(got, 0)));
    if (got < 0 && err == EINTR) {
      continue;
    }
    if (got < 0) {
      return err;
    }
    if (got == 0) {
      break;
    }
    left -= static_cast<std::size_t>(got);
  }
  return 0;
}

int WriteFully(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t wrote = ::write(fd, bytes.data(), bytes.size());
    if (wrote < 0 && errno == EINTR) {
      continue;
    }
    if (wrote < 0) {
      return errno;
    }
    if (wrote == 0) {
      return EIO;  // no progress, and no error to name
    }
    bytes.remove_prefix(static_cast<std::size_t>(wrote));
  }
  return 0;
}

int ReadAt(int fd, std::uint64_t offset, std::span<char> buffer, std::size_t& got) {
  got = 0;
  ssize_t n = 0;
  do {
    n = ::pread(fd, buffer.data(), buffer.size(), static_cast<off_t>(offset));
  } while (n < 0 && errno == EINTR);
  if (n < 0) {
    return errno;
  }
  got = static_cast<std::size_t>(n);
  return 0;
}

Result<UniqueFd> OpenForReading(const std::string& path, int* error) {
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    return IoError("open", path, errno, error);
  }
  NoError(error);
  return fd;
}

Result<UniqueFd> CreateNewFile(const std::string& path, unsigned mode, int* error) {
  UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                     static_cast<mode_t>(mode)));
  if (!fd.valid()) {
    return IoError("create", path, errno, error);
  }
  NoError(error);
  return fd;
}

Status RemoveFile(const std::string& path, int* error) {
  if (::unlink(path.c_str()) != 0) {
    return IoError("remove", path, errno, error);
  }
  NoError(error);
  return {};
}

Result<UniqueFd> Duplicate(int fd, int* error) {
  UniqueFd copy(::fcntl(fd, F_DUPFD_CLOEXEC, 0));
  if (!copy.valid()) {
    const int err = errno;  // before std::to_string, which may change it
    return IoError("duplicate descriptor", std::to_string(fd), err, error);
  }
  NoError(error);
  return copy;
}

bool IsExecutable(const std::string& path) {
  return ::access(path.c_str(), X_OK) == 0;
}

bool CanWriteIn(const std::string& dir) {
  return ::access(dir.c_str(), W_OK | X_OK) == 0;
}

}  // namespace trainyard::os
