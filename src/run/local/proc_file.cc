#include "run/local/proc_file.h"

#include <array>
#include <cerrno>
#include <cstddef>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "base/unique_fd.h"

namespace trainyard::run::local {
namespace {

Status ProcFileError(const std::string& path, int err) {
  if (err == ENOENT || err == ESRCH) {
    return Status::NotFound(path + ": " + Errno(err));
  }
  return Status::Unavailable("Cannot read " + path + ": " + Errno(err));
}

}  // namespace

Result<std::string> ReadProcFile(const std::string& path) {
  UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    return ProcFileError(path, errno);
  }
  std::string text;
  std::array<char, 4096> buffer{};
  while (true) {
    const ssize_t got = read(fd.get(), buffer.data(), buffer.size());
    if (got < 0 && errno == EINTR) {
      continue;
    }
    if (got < 0) {
      return ProcFileError(path, errno);
    }
    if (got == 0) {
      return text;
    }
    text.append(buffer.data(), static_cast<std::size_t>(got));
  }
}

Result<std::vector<std::string>> ProcessCommandLine(int pid) {
  Result<std::string> text = ReadProcFile("/proc/" + std::to_string(pid) + "/cmdline");
  if (!text.ok()) {
    return text.status();
  }
  return SplitCommandLine(*text);
}

std::vector<std::string> SplitCommandLine(const std::string& text) {
  std::vector<std::string> words;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\0', start);
    if (end == std::string::npos) {
      end = text.size();
    }
    words.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return words;
}

}  // namespace trainyard::run::local
