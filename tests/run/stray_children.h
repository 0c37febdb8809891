// Cleans up after a test that starts supervisors as its own children: whatever a failed assertion
// left running is killed with its process group and reaped when the test ends.
#pragma once

#include <vector>

#include <signal.h>
#include <sys/wait.h>

namespace trainyard::run::testing {

class StrayChildren {
 public:
  StrayChildren() = default;
  StrayChildren(const StrayChildren&) = delete;
  StrayChildren& operator=(const StrayChildren&) = delete;
  ~StrayChildren() {
    for (int pid : pids_) {
      // Not reaped yet: the pid, and so its group id, still belongs to the test's child.
      if (pid > 0 && waitpid(pid, nullptr, WNOHANG) == 0) {
        kill(-pid, SIGKILL);
        waitpid(pid, nullptr, 0);
      }
    }
  }

  // `pid` (a child of this process leading its own group) is to be cleaned up; returns it.
  int Add(int pid) {
    pids_.push_back(pid);
    return pid;
  }

 private:
  std::vector<int> pids_;
};

}  // namespace trainyard::run::testing
