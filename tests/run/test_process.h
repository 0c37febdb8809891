// What the run/ integration tests share: the supervisor replicas run under, how long a test waits
// for a process, and a file's bytes.
#pragma once

#include <fstream>
#include <sstream>
#include <string>

#include "support/build_paths.h"

namespace trainyard::run::testing {

inline const char* const kSupervisor = ::trainyard::testing::SupervisorPath().c_str();
inline constexpr int kDeadlineMs = 30'000;

// The bytes of the file at `path` ("" when it is missing).
inline std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace trainyard::run::testing
