#include "logs/log_entry.h"

#include <array>
#include <utility>

namespace trainyard::logs {
namespace {

// google.logging.type.LogSeverity, in rank order.
constexpr std::array<std::pair<Severity, std::string_view>, 9> kSeverities = {{
    {Severity::kDefault, "DEFAULT"},
    {Severity::kDebug, "DEBUG"},
    {Severity::kInfo, "INFO"},
    {Severity::kNotice, "NOTICE"},
    {Severity::kWarning, "WARNING"},
    {Severity::kError, "ERROR"},
    {Severity::kCritical, "CRITICAL"},
    {Severity::kAlert, "ALERT"},
    {Severity::kEmergency, "EMERGENCY"},
}};

}  // namespace

std::string_view SeverityName(Severity severity) {
  for (const auto& [value, name] : kSeverities) {
    if (value == severity) {
      return name;
    }
  }
  return "DEFAULT";  // not a named value: the API shows unknown severities as DEFAULT
}

std::optional<Severity> ParseSeverity(std::string_view name) {
  for (const auto& [value, spelling] : kSeverities) {
    if (spelling == name) {
      return value;
    }
  }
  return std::nullopt;
}

}  // namespace trainyard::logs
