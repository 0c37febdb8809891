// Ctrl-C while the command line follows a job's logs. While an `InterruptScope` lives, SIGINT
// only sets a flag, so the follow can stop between requests, clear its status line and say what
// to do next (as gcloud's `RaisesKeyboardInterrupt` section does); the previous handler comes
// back when the scope ends. One scope at a time, on the main thread.
#pragma once

#include <chrono>

namespace trainyard::cli {

class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  bool interrupted() const;

  // Sleeps for `duration`, cut short by SIGINT; returns false when SIGINT has arrived (now or
  // before).
  bool Wait(std::chrono::milliseconds duration) const;
};

}  // namespace trainyard::cli
