// Whole-word, case-insensitive matching of `nvidia-smi` device names against catalog patterns.
#include <cctype>

#include "catalog/parse.h"

namespace trainyard::catalog::internal {
namespace {

char Lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

bool IsWordChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}

}  // namespace

bool DeviceNameMatches(std::string_view pattern, std::string_view device_name) {
  if (pattern.empty() || pattern.size() > device_name.size()) {
    return false;
  }
  for (std::size_t start = 0; start + pattern.size() <= device_name.size(); ++start) {
    bool equal = true;
    for (std::size_t i = 0; i < pattern.size() && equal; ++i) {
      equal = Lower(device_name[start + i]) == Lower(pattern[i]);
    }
    const std::size_t end = start + pattern.size();
    if (equal && (start == 0 || !IsWordChar(device_name[start - 1])) &&
        (end == device_name.size() || !IsWordChar(device_name[end]))) {
      return true;
    }
  }
  return false;
}

}  // namespace trainyard::catalog::internal
