// `TempDirTest`: the fixture of tests of file effects (tests/os/), a fresh directory of its own
// (fakes/temp_dir.h) for each test; and the plain file reads and writes such tests set up and
// check with.
#pragma once

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "fakes/temp_dir.h"

namespace trainyard::testing {

// `text` as the whole of the file at `path` (made, or truncated).
inline void WriteFile(const std::filesystem::path& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The bytes of the file at `path`; "" when it cannot be read.
inline std::string ReadFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

// The names of the entries of the directory `dir`.
inline std::set<std::string> EntryNames(const std::filesystem::path& dir) {
  std::set<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    names.insert(entry.path().filename().string());
  }
  return names;
}

// A test with a fresh directory of its own, `temp_`: `At(name)` is a path in it; `Write` and
// `Read` the whole of a file anywhere.
class TempDirTest : public ::testing::Test {
 protected:
  std::string At(const std::string& name) const { return temp_.File(name); }
  static void Write(const std::filesystem::path& path, const std::string& text) {
    WriteFile(path, text);
  }
  static std::string Read(const std::filesystem::path& path) { return ReadFile(path); }

  TempDir temp_;
};

}  // namespace trainyard::testing
