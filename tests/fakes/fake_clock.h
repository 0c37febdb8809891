// A `Clock` that moves only when the test says so (STYLE.md §6). Not thread-safe: tests advance it
// from the test thread while nothing else reads it.
#pragma once

#include <chrono>

#include "base/clock.h"

namespace trainyard::testing {

class FakeClock final : public Clock {
 public:
  WallTime Now() const override { return start_ + elapsed_; }
  MonoTime Monotonic() const override { return MonoTime(elapsed_); }
  void Advance(std::chrono::milliseconds d) { elapsed_ += d; }

 private:
  WallTime start_{std::chrono::seconds(1'700'000'000)};  // any fixed instant
  std::chrono::milliseconds elapsed_{0};
};

}  // namespace trainyard::testing
