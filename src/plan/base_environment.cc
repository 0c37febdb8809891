#include "plan/base_environment.h"

#include <algorithm>

namespace trainyard::plan {
namespace {

bool IsNameStart(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

bool IsNameChar(char c) {
  return IsNameStart(c) || (c >= '0' && c <= '9');
}

bool Passes(std::string_view name, const std::vector<std::string>& extra) {
  auto matches = [name](std::string_view pattern) { return MatchesVariable(pattern, name); };
  return std::ranges::any_of(kPassedVariables, matches) || std::ranges::any_of(extra, matches);
}

}  // namespace

bool MatchesVariable(std::string_view pattern, std::string_view name) {
  if (pattern.ends_with('*')) {
    return name.starts_with(pattern.substr(0, pattern.size() - 1));
  }
  return name == pattern;
}

Status CheckPassedPatterns(const std::vector<std::string>& patterns) {
  for (const std::string& pattern : patterns) {
    std::string_view name = pattern;
    if (name.ends_with('*')) {
      name.remove_suffix(1);
    }
    if (name.empty() || !IsNameStart(name.front()) || !std::ranges::all_of(name, IsNameChar)) {
      return Status::InvalidArgument(std::vector<FieldViolation>{
          {.field = "pass-env",
           .description = "'" + pattern +
                          "' is not an environment variable name (letters, digits and _, not "
                          "starting with a digit), optionally ending in * for a prefix"}});
    }
  }
  return {};
}

EnvironmentPairs JobBaseEnvironment(const EnvironmentPairs& server,
                                    const std::vector<std::string>& extra,
                                    std::string_view user_name, std::string_view user_home) {
  EnvironmentPairs out;
  for (const auto& [name, value] : server) {
    if (Passes(name, extra)) {
      out.emplace_back(name, value);
    }
  }
  if (!user_name.empty()) {
    const std::array<std::pair<std::string_view, std::string_view>, 3> identity = {
        {{"HOME", user_home}, {"USER", user_name}, {"LOGNAME", user_name}}};
    for (const auto& [name, value] : identity) {
      auto it = std::ranges::find_if(
          out, [name = name](const auto& entry) { return entry.first == name; });
      if (it != out.end()) {
        it->second = value;
      } else {
        out.emplace_back(name, value);
      }
    }
  }
  return out;
}

}  // namespace trainyard::plan
