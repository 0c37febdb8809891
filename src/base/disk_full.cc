#include "base/disk_full.h"

#include <cerrno>
#include <string>

namespace trainyard {

bool IsDiskFull(int err) {
  return err == ENOSPC || err == EDQUOT;
}

Status DiskFullError(std::string_view what, std::string_view cause) {
  return Status::ResourceExhausted("The server's disk is full (" + std::string(cause) +
                                   "): cannot " + std::string(what) +
                                   ". Free space where the server keeps its data, then retry.");
}

}  // namespace trainyard
