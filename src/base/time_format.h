// Text forms of time used on the wire: RFC 3339 timestamps and protobuf Durations.
// Pure functions; thread-safe.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "base/clock.h"

namespace trainyard {

using Duration = std::chrono::nanoseconds;

// Parses RFC 3339 ("2018-02-27T22:09:40Z", "…:40.123456789Z", "…:40+02:00"), any number of
// fractional digits up to 9. Returns nullopt for anything else.
std::optional<WallTime> ParseTimestamp(std::string_view text);

// Formats in UTC as protobuf's JSON mapping does: no fraction when whole, else 3, 6 or 9 digits.
std::string FormatTimestamp(WallTime time);

// Formats in UTC with exactly 6 fractional digits ("2026-11-21T09:35:01.760285Z"): the fixed
// width that gcloud's lexicographic log ordering needs.
std::string FormatTimestampMicros(WallTime time);

// Parses a protobuf JSON Duration: decimal seconds with an "s" suffix ("7200s", "1.5s", "-2s"),
// up to 9 fractional digits. Returns nullopt for anything else (including overflow).
std::optional<Duration> ParseDuration(std::string_view text);

// Formats as protobuf does: "7200s", "1.500s", "0.000000001s".
std::string FormatDuration(Duration duration);

}  // namespace trainyard
