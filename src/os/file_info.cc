#include "os/file_info.h"

#include <cerrno>

#include <sys/stat.h>

#include "os/io_error.h"
#include "os/stat_info.h"

namespace trainyard::os {

Result<FileInfo> StatPath(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    return IoError("describe", path, errno);
  }
  return internal::ToFileInfo(st);
}

}  // namespace trainyard::os
