#include "cli/local/temp_dir.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <stdlib.h>  // mkdtemp

namespace trainyard::cli {

Result<TempDir> TempDir::Create(std::string_view prefix) {
  const char* tmpdir = std::getenv("TMPDIR");
  const std::filesystem::path base = (tmpdir != nullptr && *tmpdir != '\0') ? tmpdir : "/tmp";
  std::string pattern = (base / fmt::format("{}XXXXXX", prefix)).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (mkdtemp(buffer.data()) == nullptr) {
    return Status::Internal(fmt::format("Cannot create a temporary directory in [{}]: {}",
                                        base.string(), std::strerror(errno)));
  }
  return TempDir(std::filesystem::path(buffer.data()));
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}

TempDir& TempDir::operator=(TempDir&& other) noexcept {
  if (this != &other) {
    Remove();
    path_ = std::exchange(other.path_, {});
  }
  return *this;
}

TempDir::~TempDir() {
  Remove();
}

void TempDir::Remove() noexcept {
  if (!path_.empty()) {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
    path_.clear();
  }
}

}  // namespace trainyard::cli
