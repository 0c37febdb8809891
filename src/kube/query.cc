#include "kube/query.h"

#include <algorithm>
#include <cctype>

namespace trainyard::kube {

bool QueryBool(std::optional<std::string_view> value) {
  if (!value.has_value()) {
    return false;
  }
  constexpr std::string_view kFalse = "false";
  const bool is_false = std::ranges::equal(*value, kFalse, [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == b;
  });
  return !(is_false || *value == "0");
}

}  // namespace trainyard::kube
