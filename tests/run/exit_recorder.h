// Collects a launcher's exit reports for tests: the callback to build a `ProcessLauncher` with,
// and waits (with a generous deadline, never a sleep) for the reports a test expects.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <vector>

#include "run/launcher.h"

namespace trainyard::run::testing {

class ExitRecorder {
 public:
  static constexpr std::chrono::seconds kDeadline{30};

  Launcher::ExitCallback Callback() {
    return [this](int pid, ExitStatus status) {
      std::lock_guard lock(mu_);
      exits_[pid].push_back(status);
      ++total_;
      cv_.notify_all();
    };
  }

  // The exit of `pid`, or nothing when it was not reported within the deadline.
  std::optional<ExitStatus> WaitFor(int pid) {
    std::unique_lock lock(mu_);
    if (!cv_.wait_for(lock, kDeadline, [&] { return exits_.contains(pid); })) {
      return std::nullopt;
    }
    return exits_[pid].front();
  }

  // Whether `count` exits in all were reported within the deadline.
  bool WaitForTotal(int count) {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kDeadline, [&] { return total_ >= count; });
  }

  std::map<int, std::vector<ExitStatus>> exits() {
    std::lock_guard lock(mu_);
    return exits_;
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::map<int, std::vector<ExitStatus>> exits_;  // guarded by mu_
  int total_ = 0;                                 // guarded by mu_
};

}  // namespace trainyard::run::testing
