#include "os/file.h"

#include <algorithm>
#include <cerrno>
#include <fstream>
#include <sstream>

#include <unistd.h>

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

}  // namespace trainyard::os
