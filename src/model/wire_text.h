// Checks of the text forms that scalar wire values take (internal to model/): base64 bytes, and
// timestamps and durations limited to what `WallTime`/`Duration` can hold. Pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/time_format.h"

namespace trainyard::model::internal {

// What the timestamp and duration readers accept, for error messages.
inline constexpr std::string_view kTimestampForm =
    "expected an RFC 3339 timestamp between the years 1678 and 2261, such as "
    "\"2018-02-27T22:09:40Z\"";
inline constexpr std::string_view kDurationForm =
    "expected a duration in seconds with an \"s\" suffix and at most 9 fractional digits, "
    "between -9223372035s and 9223372035s, such as \"7200s\"";

// Standard alphabet with '=' padding to a multiple of 4 characters, as gcloud requires
// (docs/reference/ai-platform-training.md §1.3).
bool IsPaddedBase64(std::string_view text);

// `ParseTimestamp`, limited to years 1678..2261: `WallTime` counts nanoseconds in an int64.
std::optional<WallTime> ParseTimestampInRange(std::string_view text);

// `ParseDuration`, limited to what an int64 of nanoseconds holds (about ±292 years).
std::optional<Duration> ParseDurationInRange(std::string_view text);

}  // namespace trainyard::model::internal
