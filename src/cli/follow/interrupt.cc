#include "cli/follow/interrupt.h"

#include <algorithm>
#include <atomic>
#include <csignal>
#include <thread>

namespace trainyard::cli {
namespace {

// Set by the handler; lock-free, so safe to touch from a signal handler.
std::atomic<bool> g_interrupted{false};
static_assert(std::atomic<bool>::is_always_lock_free);

// How often a wait looks at the flag.
constexpr std::chrono::milliseconds kSlice{50};

// The handler an `InterruptScope` replaced (one scope at a time).
struct sigaction g_previous {};

extern "C" void OnInterrupt(int /*signal*/) {
  g_interrupted.store(true);
}

}  // namespace

InterruptScope::InterruptScope() {
  g_interrupted.store(false);
  struct sigaction action {};
  action.sa_handler = OnInterrupt;
  sigemptyset(&action.sa_mask);
  sigaction(SIGINT, &action, &g_previous);
}

InterruptScope::~InterruptScope() {
  sigaction(SIGINT, &g_previous, nullptr);
}

bool InterruptScope::interrupted() const {
  return g_interrupted.load();
}

bool InterruptScope::Wait(std::chrono::milliseconds duration) const {
  while (!interrupted() && duration.count() > 0) {
    const std::chrono::milliseconds slice = std::min(duration, kSlice);
    std::this_thread::sleep_for(slice);
    duration -= slice;
  }
  return !interrupted();
}

}  // namespace trainyard::cli
