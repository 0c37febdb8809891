// Small text helpers with no home of their own.
#pragma once

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

}  // namespace trainyard
