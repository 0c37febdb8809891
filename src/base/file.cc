#include "base/file.h"

#include <cerrno>
#include <fstream>
#include <sstream>

namespace trainyard {

std::optional<std::string> ReadFileText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return std::nullopt;
  }
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

bool IsDiskFull(int err) {
  return err == ENOSPC || err == EDQUOT;
}

Status DiskFullError(std::string_view what, std::string_view cause) {
  return Status::ResourceExhausted("The server's disk is full (" + std::string(cause) +
                                   "): cannot " + std::string(what) +
                                   ". Free space where the server keeps its data, then retry.");
}

}  // namespace trainyard
