// What the run/ integration tests share: the supervisor replicas run under, how long a test waits
// for a process, and a file's bytes.
#pragma once

#include <chrono>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "support/build_paths.h"
#include "support/wait.h"

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

// A duration for `sleep` that no other process on this machine has on its command line
// ("1000.<random digits>"): a test finds its sleeper by it (PidsWithArgument), since a replica's
// processes report the pids of their own PID namespace, not the host's.
inline std::string UniqueSleep() {
  std::random_device random;
  return "1000." + std::to_string(random() % 1'000'000'000U);
}

// The host pids of the processes whose command line has `argument` as one of its words.
inline std::vector<int> PidsWithArgument(std::string_view argument) {
  std::vector<int> pids;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", error)) {
    const std::string name = entry.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) {
      continue;
    }
    const std::string command = ReadFile(entry.path().string() + "/cmdline");
    std::size_t start = 0;
    while (start < command.size()) {
      const std::size_t end = std::min(command.find('\0', start), command.size());
      if (std::string_view(command).substr(start, end - start) == argument) {
        pids.push_back(std::stoi(name));
        break;
      }
      start = end + 1;
    }
  }
  return pids;
}

// The host pids of the processes sleeping `sleep`, once there are `count` (within the deadline).
inline std::vector<int> AwaitSleepers(const std::string& sleep, std::size_t count) {
  std::vector<int> pids;
  ::trainyard::testing::WaitUntil([&] { return (pids = PidsWithArgument(sleep)).size() >= count; },
                                  std::chrono::milliseconds(kDeadlineMs));
  return pids;
}

// Whether no process sleeps `sleep` any more, within the deadline.
inline bool NoSleeperWithin(const std::string& sleep) {
  return ::trainyard::testing::WaitUntil([&] { return PidsWithArgument(sleep).empty(); },
                                         std::chrono::milliseconds(kDeadlineMs));
}

}  // namespace trainyard::run::testing
