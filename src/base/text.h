// Small text helpers with no home of their own.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace trainyard {

// `text` without the spaces, tabs and line ends around it.
inline std::string_view TrimWhitespace(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n";
  const std::size_t begin = text.find_first_not_of(kSpace);
  if (begin == std::string_view::npos) {
    return {};
  }
  return text.substr(begin, text.find_last_not_of(kSpace) - begin + 1);
}

// `text` cut to at most `max_bytes` bytes, never inside a UTF-8 character, with "…" where it was
// cut: for quoting what a client sent (a body, a value) in a message of bounded size.
inline std::string Excerpt(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) {
    return std::string(text);
  }
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0U) == 0x80U) {
    --cut;  // a continuation byte: the character began before
  }
  std::string out(text.substr(0, cut));
  out += "…";
  return out;
}

}  // namespace trainyard
