// Time as a dependency: code that needs "now" takes a `Clock&`, so tests can use a fake one.
#pragma once

#include <chrono>
#include <cstdint>

namespace trainyard {

using WallTime = std::chrono::system_clock::time_point;  // shown to users (createTime, logs)
using MonoTime = std::chrono::steady_clock::time_point;  // timeouts and backoff

class Clock {
 public:
  virtual ~Clock() = default;
  virtual WallTime Now() const = 0;
  virtual MonoTime Monotonic() const = 0;
};

// A wall time as nanoseconds since the Unix epoch and back, as the stores keep times.
inline std::int64_t ToNanos(WallTime time) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(time.time_since_epoch()).count();
}
inline WallTime FromNanos(std::int64_t nanos) {
  return WallTime(std::chrono::duration_cast<WallTime::duration>(std::chrono::nanoseconds(nanos)));
}

// The real clocks. Thread-safe.
class SystemClock final : public Clock {
 public:
  WallTime Now() const override { return std::chrono::system_clock::now(); }
  MonoTime Monotonic() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace trainyard
