#include "model/wire_text.h"

#include <algorithm>
#include <charconv>
#include <cstdint>

#include <nlohmann/json.hpp>

namespace trainyard::model::internal {
namespace {

bool IsBase64Char(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' ||
         c == '/';
}

bool IsContinuation(unsigned char c) {
  return (c & 0xC0U) == 0x80U;
}

// The length of the well-formed UTF-8 sequence at `text[i]`, or 0 if there is none.
std::size_t Utf8SequenceLength(std::string_view text, std::size_t i) {
  const auto lead = static_cast<unsigned char>(text[i]);
  std::size_t length = 0;
  std::uint32_t code = 0;
  if (lead < 0x80U) {
    return 1;
  }
  if ((lead & 0xE0U) == 0xC0U) {
    length = 2;
    code = lead & 0x1FU;
  } else if ((lead & 0xF0U) == 0xE0U) {
    length = 3;
    code = lead & 0x0FU;
  } else if ((lead & 0xF8U) == 0xF0U) {
    length = 4;
    code = lead & 0x07U;
  } else {
    return 0;
  }
  if (text.size() - i < length) {
    return 0;
  }
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[i + k]);
    if (!IsContinuation(next)) {
      return 0;
    }
    code = (code << 6U) | (next & 0x3FU);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  const bool overlong = (length == 2 && code < 0x80U) || (length == 3 && code < 0x800U) ||
                        (length == 4 && code < 0x10000U);
  if (overlong || code > 0x10FFFFU || (code >= 0xD800U && code <= 0xDFFFU)) {
    return 0;
  }
  return length;
}

}  // namespace

bool IsValidUtf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = Utf8SequenceLength(text, i);
    if (length == 0) {
      return false;
    }
    i += length;
  }
  return true;
}

std::string ToValidUtf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = Utf8SequenceLength(text, i);
    if (length == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

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

std::string QuoteForMessage(std::string_view text) {
  constexpr std::size_t kMaxShown = 100;
  const bool cut = text.size() > kMaxShown;
  const nlohmann::json shown(std::string(text.substr(0, kMaxShown)));
  std::string quoted = shown.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (cut) {
    quoted.insert(quoted.size() - 1, "...");
  }
  return quoted;
}

}  // namespace trainyard::model::internal
