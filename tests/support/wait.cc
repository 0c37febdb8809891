#include "support/wait.h"

#include <algorithm>
#include <thread>

namespace trainyard::testing {

bool WaitUntil(const std::function<bool()>& condition, std::chrono::milliseconds deadline) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point until = Clock::now() + deadline;
  std::chrono::milliseconds pause{1};
  while (!condition()) {
    const Clock::time_point now = Clock::now();
    if (now >= until) {
      return false;
    }
    std::this_thread::sleep_for(std::min<Clock::duration>(pause, until - now));
    pause = std::min(pause * 2, std::chrono::milliseconds(50));
  }
  return true;
}

}  // namespace trainyard::testing
