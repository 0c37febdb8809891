#include "base/base64.h"

#include <algorithm>
#include <array>
#include <cstdint>

namespace trainyard {
namespace {

constexpr std::string_view kStandardChars =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr std::string_view kUrlSafeChars =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

std::string_view Chars(Base64Alphabet alphabet) {
  return alphabet == Base64Alphabet::kStandard ? kStandardChars : kUrlSafeChars;
}

// Character -> 6-bit value, or -1.
std::array<int, 256> DecodeTable(std::string_view chars) {
  std::array<int, 256> table{};
  table.fill(-1);
  for (std::size_t i = 0; i < chars.size(); ++i) {
    table[static_cast<unsigned char>(chars[i])] = static_cast<int>(i);
  }
  return table;
}

}  // namespace

std::string Base64Encode(std::string_view bytes, Base64Alphabet alphabet) {
  const std::string_view chars = Chars(alphabet);
  const bool pad = alphabet == Base64Alphabet::kStandard;
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t group = 0;
    for (std::size_t j = 0; j < 3; ++j) {
      group = (group << 8) | (j < n ? static_cast<unsigned char>(bytes[i + j]) : 0U);
    }
    for (std::size_t j = 0; j < 4; ++j) {
      if (j <= n) {
        out += chars[(group >> (18 - 6 * j)) & 0x3f];
      } else if (pad) {
        out += '=';
      }
    }
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text, Base64Alphabet alphabet) {
  static const std::array<int, 256> kStandard = DecodeTable(kStandardChars);
  static const std::array<int, 256> kUrlSafe = DecodeTable(kUrlSafeChars);
  const std::array<int, 256>& table = alphabet == Base64Alphabet::kStandard ? kStandard : kUrlSafe;
  if (alphabet == Base64Alphabet::kStandard) {
    if (text.size() % 4 != 0) {
      return std::nullopt;
    }
    const std::size_t last = text.find_last_not_of('=');
    const std::size_t padding =
        last == std::string_view::npos ? text.size() : text.size() - 1 - last;
    if (padding > 2) {
      return std::nullopt;
    }
    text.remove_suffix(padding);
  }
  if (text.size() % 4 == 1) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(text.size() * 3 / 4);
  std::uint32_t bits = 0;
  int bit_count = 0;
  for (const char c : text) {
    const int value = table[static_cast<unsigned char>(c)];
    if (value < 0) {
      return std::nullopt;
    }
    bits = (bits << 6) | static_cast<std::uint32_t>(value);
    bit_count += 6;
    if (bit_count >= 8) {
      bit_count -= 8;
      out += static_cast<char>((bits >> bit_count) & 0xff);
    }
  }
  if ((bits & ((1U << bit_count) - 1)) != 0) {
    return std::nullopt;  // stray bits: not the canonical spelling
  }
  return out;
}

}  // namespace trainyard
