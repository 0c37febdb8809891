#include "validate/formats.h"

#include <algorithm>

namespace trainyard::validate {
namespace {

bool IsLower(char c) {
  return c >= 'a' && c <= 'z';
}
bool IsUpper(char c) {
  return c >= 'A' && c <= 'Z';
}
bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsLetter(char c) {
  return IsLower(c) || IsUpper(c);
}
bool IsWordChar(char c) {
  return IsLetter(c) || IsDigit(c) || c == '_';
}
bool IsLabelChar(char c) {
  return IsLower(c) || IsDigit(c) || c == '_' || c == '-';
}

bool IsIdentifier(std::string_view text) {
  return !text.empty() && (IsLetter(text.front()) || text.front() == '_') &&
         std::ranges::all_of(text, IsWordChar);
}

// Cloud Storage bucket names: 3-222 characters of lowercase letters, digits, '-', '_' and '.',
// starting and ending with a letter or digit.
bool IsBucketName(std::string_view name) {
  if (name.size() < 3 || name.size() > 222) {
    return false;
  }
  const auto edge = [](char c) { return IsLower(c) || IsDigit(c); };
  return edge(name.front()) && edge(name.back()) &&
         std::ranges::all_of(name, [](char c) { return IsLabelChar(c) || c == '.'; });
}

constexpr std::string_view kGcsScheme = "gs://";

}  // namespace

bool IsJobId(std::string_view text) {
  return !text.empty() && text.size() <= kMaxJobIdLength && IsLetter(text.front()) &&
         std::ranges::all_of(text, IsWordChar);
}

bool IsGcsObjectUri(std::string_view text) {
  if (!text.starts_with(kGcsScheme)) {
    return false;
  }
  text.remove_prefix(kGcsScheme.size());
  const std::size_t slash = text.find('/');
  return slash != std::string_view::npos && IsBucketName(text.substr(0, slash)) &&
         slash + 1 < text.size() && text.back() != '/';
}

bool IsGcsDirectoryUri(std::string_view text) {
  if (!text.starts_with(kGcsScheme)) {
    return false;
  }
  text.remove_prefix(kGcsScheme.size());
  return IsBucketName(text.substr(0, text.find('/')));
}

bool IsAbsoluteLocalPath(std::string_view text) {
  return text.size() > 1 && text.front() == '/' &&
         std::ranges::none_of(text, [](char c) { return c == '\0' || c == '\n'; });
}

bool IsPythonModule(std::string_view text) {
  if (text.empty()) {
    return false;
  }
  while (true) {
    const std::size_t dot = text.find('.');
    if (!IsIdentifier(text.substr(0, dot))) {
      return false;
    }
    if (dot == std::string_view::npos) {
      return true;
    }
    text.remove_prefix(dot + 1);
  }
}

bool IsLabelKey(std::string_view text) {
  return !text.empty() && text.size() <= kMaxLabelLength && IsLower(text.front()) &&
         std::ranges::all_of(text, IsLabelChar);
}

bool IsLabelValue(std::string_view text) {
  return text.size() <= kMaxLabelLength && std::ranges::all_of(text, IsLabelChar);
}

}  // namespace trainyard::validate
