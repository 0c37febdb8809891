#include "kube/query.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

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

KubeResult<std::vector<std::string>> UnknownFieldWarnings(std::optional<std::string_view> directive,
                                                          const std::vector<std::string>& unknown) {
  const std::string_view mode = directive.value_or("Warn");
  if (mode != "Strict" && mode != "Warn" && mode != "Ignore") {
    return BadRequest(fmt::format(
        "fieldValidation must be one of \"Ignore\", \"Warn\" or \"Strict\", not \"{}\"", mode));
  }
  if (mode == "Ignore") {
    return std::vector<std::string>{};
  }
  std::vector<std::string> fields;
  fields.reserve(unknown.size());
  for (const std::string& field : unknown) {
    fields.push_back(fmt::format("unknown field \"{}\"", field));
  }
  if (mode == "Strict" && !fields.empty()) {
    std::string message = "strict decoding error: ";
    for (std::size_t i = 0; i < fields.size(); ++i) {
      message += (i == 0 ? "" : ", ") + fields[i];
    }
    return BadRequest(message);
  }
  return fields;
}

}  // namespace trainyard::kube
