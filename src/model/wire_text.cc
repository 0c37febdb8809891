#include "model/wire_text.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace trainyard::model::internal {
namespace {

bool IsBase64Char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

}  // namespace

bool IsPaddedBase64(std::string_view text) {
  if (text.size() % 4 != 0) {
    return false;
  }
  std::size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') {
    ++padding;
  }
  for (std::size_t i = 0; i < text.size() - padding; ++i) {
    if (!IsBase64Char(text[i])) {
      return false;
    }
  }
  return true;
}

std::optional<WallTime> ParseTimestampInRange(std::string_view text) {
  constexpr int kMinYear = 1678;
  constexpr int kMaxYear = 2261;
  int year = 0;
  const char* year_end = text.data() + std::min<std::size_t>(4, text.size());
  const auto [ptr, ec] = std::from_chars(text.data(), year_end, year);
  if (ec != std::errc() || ptr != text.data() + 4 || year < kMinYear || year > kMaxYear) {
    return std::nullopt;
  }
  return ParseTimestamp(text);
}

std::optional<Duration> ParseDurationInRange(std::string_view text) {
  constexpr std::uint64_t kMaxSeconds = 9'223'372'035;  // + 0.999999999 s still fits an int64
  std::string_view body = text;
  if (!body.empty() && body.front() == '-') {
    body.remove_prefix(1);
  }
  const std::string_view whole = body.substr(0, body.find_first_not_of("0123456789"));
  std::uint64_t seconds = 0;
  const auto [ptr, ec] = std::from_chars(whole.data(), whole.data() + whole.size(), seconds);
  if (whole.empty() || ec != std::errc() || seconds > kMaxSeconds) {
    return std::nullopt;
  }
  return ParseDuration(text);
}

}  // namespace trainyard::model::internal
