// A `run::Launcher` that starts nothing: it records what it was asked to start, signal and adopt,
// and the test decides when and how each "process" exits (by calling the executor's OnExit) and
// what each Adopt answers (AdoptAnswer; false, "it has ended", unless told).
// Thread-safe, though executor tests drive everything from the test thread.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "run/launcher.h"

namespace trainyard::testing {

class FakeLauncher final : public run::Launcher {
 public:
  struct Started {
    int pid = 0;
    run::ProcessSpec spec;
  };

  Result<int> Start(const run::ProcessSpec& spec) override {
    std::lock_guard lock(mu_);
    if (!spec.argv.empty() && spec.argv[0] == fail_program_) {
      return Status::FailedPrecondition("Cannot run " + fail_program_ + ": not found on PATH");
    }
    const int pid = next_pid_++;
    started_.push_back({pid, spec});
    return pid;
  }

  void SignalGroup(int pid, int signal) override {
    std::lock_guard lock(mu_);
    signals_.emplace_back(pid, signal);
  }

  void Release(int pid) override {
    std::lock_guard lock(mu_);
    released_.push_back(pid);
  }
  std::vector<int> released() const {
    std::lock_guard lock(mu_);
    return released_;
  }

  Result<bool> Adopt(int pid, const run::ProcessSpec& spec) override {
    std::lock_guard lock(mu_);
    adopted_.push_back({pid, spec});
    auto answer = adopt_answers_.find(pid);
    return answer != adopt_answers_.end() ? answer->second : default_adopt_answer_;
  }

  Result<int> FindStarted(const run::ProcessSpec& spec) override {
    std::lock_guard lock(mu_);
    if (!find_started_error_.ok()) {
      return find_started_error_;
    }
    auto found = started_elsewhere_.find(spec.exit_path);
    return found != started_elsewhere_.end() ? found->second : 0;
  }

  Result<std::vector<int>> FreePorts(int count) override {
    std::vector<int> ports;
    for (int i = 0; i < count; ++i) {
      ports.push_back(20000 + i);
    }
    return ports;
  }

  // Start() refuses argv[0] == `program` as a missing program.
  void FailProgram(std::string program) {
    std::lock_guard lock(mu_);
    fail_program_ = std::move(program);
  }

  // A replica an earlier server started as `pid` without recording it: FindStarted answers `pid`
  // for a spec with this exit file (0 for others).
  void StartedElsewhere(const std::string& exit_path, int pid) {
    std::lock_guard lock(mu_);
    started_elsewhere_.insert_or_assign(exit_path, pid);
  }

  // FindStarted answers `error` (e.g. a /proc file it could not read) for every spec.
  void FindStartedFails(Status error) {
    std::lock_guard lock(mu_);
    find_started_error_ = std::move(error);
  }

  // What Adopt(pid, ...) answers: true (still running), false (ended) or an error.
  void AdoptAnswer(int pid, Result<bool> answer) {
    std::lock_guard lock(mu_);
    adopt_answers_.insert_or_assign(pid, std::move(answer));
  }
  // What Adopt answers for a pid without an AdoptAnswer.
  void DefaultAdoptAnswer(Result<bool> answer) {
    std::lock_guard lock(mu_);
    default_adopt_answer_ = std::move(answer);
  }

  std::vector<Started> started() const {
    std::lock_guard lock(mu_);
    return started_;
  }
  // Every Adopt call, in order (whatever it answered).
  std::vector<Started> adopted() const {
    std::lock_guard lock(mu_);
    return adopted_;
  }
  std::vector<std::pair<int, int>> signals() const {
    std::lock_guard lock(mu_);
    return signals_;
  }
  // The signals sent to `pid`'s group, in order.
  std::vector<int> SignalsTo(int pid) const {
    std::lock_guard lock(mu_);
    std::vector<int> sent;
    for (const auto& [target, signal] : signals_) {
      if (target == pid) {
        sent.push_back(signal);
      }
    }
    return sent;
  }

 private:
  mutable std::mutex mu_;
  int next_pid_ = 1000;
  std::string fail_program_;
  std::vector<Started> started_;
  std::vector<std::pair<int, int>> signals_;
  std::vector<int> released_;  // guarded by mu_
  std::vector<Started> adopted_;
  std::map<int, Result<bool>> adopt_answers_;
  std::map<std::string, int> started_elsewhere_;
  Result<bool> default_adopt_answer_ = false;
  Status find_started_error_;
};

}  // namespace trainyard::testing
