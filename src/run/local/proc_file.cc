#include "run/local/proc_file.h"

#include <cerrno>
#include <cstddef>
#include <limits>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "os/file.h"
#include "os/unique_fd.h"

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
  os::UniqueFd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY));
  if (!fd.valid()) {
    return ProcFileError(path, errno);
  }
  std::string text;
  if (const int err = os::ReadAtMost(fd.get(), std::numeric_limits<std::size_t>::max(), text);
      err != 0) {
    return ProcFileError(path, err);
  }
  return text;
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
