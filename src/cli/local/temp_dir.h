// A private temporary directory, removed with everything in it when the owner goes away.
// Move-only. Not thread-safe (one owner).
#pragma once

#include <filesystem>
#include <string_view>

#include "base/status.h"

namespace trainyard::cli {

class TempDir {
 public:
  // Creates "<$TMPDIR or /tmp>/<prefix>XXXXXX" with mode 0700.
  static Result<TempDir> Create(std::string_view prefix);

  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&& other) noexcept;
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir();

  const std::filesystem::path& path() const { return path_; }

 private:
  explicit TempDir(std::filesystem::path path) : path_(std::move(path)) {}
  void Remove() noexcept;

  std::filesystem::path path_;  // empty once moved from
};

}  // namespace trainyard::cli
