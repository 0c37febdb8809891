#include "base/time_format.h"

#include <charconv>
#include <cstdint>
#include <cstdio>
#include <limits>

namespace trainyard {
namespace {

using std::chrono::days;
using std::chrono::nanoseconds;
using std::chrono::seconds;
using std::chrono::sys_days;

constexpr int kMinYear = 1678;
constexpr int kMaxYear = 2261;
constexpr std::int64_t kMaxDurationSeconds = 9'223'372'035LL;

// Reads exactly `width` decimal digits at `pos`; advances `pos`.
bool ReadDigits(std::string_view text, std::size_t& pos, int width, int& out) {
  if (pos + static_cast<std::size_t>(width) > text.size()) {
    return false;
  }
  int value = 0;
  for (int i = 0; i < width; ++i) {
    const char c = text[pos + static_cast<std::size_t>(i)];
    if (c < '0' || c > '9') {
      return false;
    }
    value = value * 10 + (c - '0');
  }
  pos += static_cast<std::size_t>(width);
  out = value;
  return true;
}

bool Expect(std::string_view text, std::size_t& pos, char c) {
  if (pos >= text.size() || text[pos] != c) {
    return false;
  }
  ++pos;
  return true;
}

// Reads 1..9 fractional digits after a '.', as nanoseconds.
bool ReadFraction(std::string_view text, std::size_t& pos, std::int64_t& nanos) {
  nanos = 0;
  int digits = 0;
  while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9') {
    if (digits == 9) {
      return false;
    }
    nanos = nanos * 10 + (text[pos] - '0');
    ++digits;
    ++pos;
  }
  if (digits == 0) {
    return false;
  }
  for (int i = digits; i < 9; ++i) {
    nanos *= 10;
  }
  return true;
}

std::string FormatWithFraction(WallTime time, int fraction_digits) {
  const auto ns = std::chrono::floor<nanoseconds>(time).time_since_epoch();
  const auto day = std::chrono::floor<days>(ns);
  const std::chrono::year_month_day ymd{sys_days(day)};
  auto rest = ns - day;
  const auto hour = std::chrono::floor<std::chrono::hours>(rest);
  rest -= hour;
  const auto minute = std::chrono::floor<std::chrono::minutes>(rest);
  rest -= minute;
  const auto second = std::chrono::floor<seconds>(rest);
  rest -= second;
  const std::int64_t frac = rest.count();  // 0..999'999'999

  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%04d-%02u-%02uT%02d:%02d:%02d",
                        static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                        static_cast<unsigned>(ymd.day()), static_cast<int>(hour.count()),
                        static_cast<int>(minute.count()), static_cast<int>(second.count()));
  std::string out(buf, static_cast<std::size_t>(n));
  if (fraction_digits > 0) {
    std::int64_t scaled = frac;
    for (int i = fraction_digits; i < 9; ++i) {
      scaled /= 10;
    }
    n = std::snprintf(buf, sizeof(buf), ".%0*lld", fraction_digits, static_cast<long long>(scaled));
    out.append(buf, static_cast<std::size_t>(n));
  }
  out += 'Z';
  return out;
}

}  // namespace

std::optional<WallTime> ParseTimestamp(std::string_view text) {
  std::size_t pos = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  if (!ReadDigits(text, pos, 4, year) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 2, month) || !Expect(text, pos, '-') ||
      !ReadDigits(text, pos, 2, day)) {
    return std::nullopt;
  }
  if (pos >= text.size() || (text[pos] != 'T' && text[pos] != 't')) {
    return std::nullopt;
  }
  ++pos;
  if (!ReadDigits(text, pos, 2, hour) || !Expect(text, pos, ':') ||
      !ReadDigits(text, pos, 2, minute) || !Expect(text, pos, ':') ||
      !ReadDigits(text, pos, 2, second)) {
    return std::nullopt;
  }
  std::int64_t nanos = 0;
  if (pos < text.size() && text[pos] == '.') {
    ++pos;
    if (!ReadFraction(text, pos, nanos)) {
      return std::nullopt;
    }
  }
  int offset_minutes = 0;
  if (pos < text.size() && (text[pos] == 'Z' || text[pos] == 'z')) {
    ++pos;
  } else if (pos < text.size() && (text[pos] == '+' || text[pos] == '-')) {
    const int sign = text[pos] == '+' ? 1 : -1;
    ++pos;
    int oh = 0, om = 0;
    if (!ReadDigits(text, pos, 2, oh) || !Expect(text, pos, ':') || !ReadDigits(text, pos, 2, om) ||
        oh > 23 || om > 59) {
      return std::nullopt;
    }
    offset_minutes = sign * (oh * 60 + om);
  } else {
    return std::nullopt;
  }
  if (pos != text.size()) {
    return std::nullopt;
  }
  const std::chrono::year_month_day ymd{std::chrono::year(year),
                                        std::chrono::month(static_cast<unsigned>(month)),
                                        std::chrono::day(static_cast<unsigned>(day))};
  // WallTime holds int64 nanoseconds since 1970: years 1678 to 2261.
  if (year < kMinYear || year > kMaxYear) {
    return std::nullopt;
  }
  if (!ymd.ok() || hour > 23 || minute > 59 || second > 60) {
    return std::nullopt;
  }
  const auto since_epoch = sys_days(ymd).time_since_epoch() + std::chrono::hours(hour) +
                           std::chrono::minutes(minute - offset_minutes) + seconds(second);
  return WallTime(std::chrono::duration_cast<WallTime::duration>(
      std::chrono::duration_cast<nanoseconds>(since_epoch) + nanoseconds(nanos)));
}

std::string FormatTimestamp(WallTime time) {
  const auto ns = std::chrono::floor<nanoseconds>(time).time_since_epoch();
  const std::int64_t frac = (ns - std::chrono::floor<seconds>(ns)).count();
  int digits = 0;
  if (frac != 0) {
    digits = frac % 1'000'000 == 0 ? 3 : (frac % 1'000 == 0 ? 6 : 9);
  }
  return FormatWithFraction(time, digits);
}

std::string FormatTimestampMicros(WallTime time) {
  return FormatWithFraction(time, 6);
}

std::optional<Duration> ParseDuration(std::string_view text) {
  if (text.size() < 2 || text.back() != 's') {
    return std::nullopt;
  }
  text.remove_suffix(1);
  bool negative = false;
  if (!text.empty() && text.front() == '-') {
    negative = true;
    text.remove_prefix(1);
  }
  const std::size_t dot = text.find('.');
  const std::string_view whole = text.substr(0, dot);
  if (whole.empty() || whole.front() < '0' || whole.front() > '9') {
    return std::nullopt;
  }
  std::int64_t secs = 0;
  const auto [end, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), secs);
  if (ec != std::errc() || end != whole.data() + whole.size()) {
    return std::nullopt;
  }
  // A Duration is held in int64 nanoseconds: about +-292 years (protobuf allows more, but no
  // scheduling limit needs it).
  if (secs > kMaxDurationSeconds) {
    return std::nullopt;
  }
  std::int64_t nanos = 0;
  if (dot != std::string_view::npos) {
    std::size_t pos = dot + 1;
    if (!ReadFraction(text, pos, nanos) || pos != text.size()) {
      return std::nullopt;
    }
  }
  const std::int64_t total = secs * 1'000'000'000LL + nanos;
  return Duration(negative ? -total : total);
}

std::string FormatDuration(Duration duration) {
  const std::int64_t count = duration.count();
  std::string out;
  // Negate in unsigned arithmetic so that INT64_MIN does not overflow.
  std::uint64_t total = static_cast<std::uint64_t>(count);
  if (count < 0) {
    out += '-';
    total = ~total + 1;
  }
  const auto secs = static_cast<std::int64_t>(total / 1'000'000'000ULL);
  const auto nanos = static_cast<std::int64_t>(total % 1'000'000'000ULL);
  out += std::to_string(secs);
  if (nanos != 0) {
    char buf[16];
    int n = 0;
    if (nanos % 1'000'000 == 0) {
      n = std::snprintf(buf, sizeof(buf), ".%03lld", static_cast<long long>(nanos / 1'000'000));
    } else if (nanos % 1'000 == 0) {
      n = std::snprintf(buf, sizeof(buf), ".%06lld", static_cast<long long>(nanos / 1'000));
    } else {
      n = std::snprintf(buf, sizeof(buf), ".%09lld", static_cast<long long>(nanos));
    }
    out.append(buf, static_cast<std::size_t>(n));
  }
  out += 's';
  return out;
}

}  // namespace trainyard
