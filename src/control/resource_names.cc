#include "control/resource_names.h"

#include <algorithm>
#include <string>

#include "validate/validate.h"

namespace trainyard::control {
namespace {

constexpr std::size_t kMaxProjectIdLength = 100;

bool IsAsciiAlpha(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
bool IsAsciiDigit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

bool IsValidProjectId(std::string_view project) {
  if (project.empty() || project.size() > kMaxProjectIdLength) {
    return false;
  }
  if (!IsAsciiAlpha(project.front()) && !IsAsciiDigit(project.front())) {
    return false;
  }
  return std::ranges::all_of(project, [](char c) {
    return IsAsciiAlpha(c) || IsAsciiDigit(c) || c == '-' || c == '_' || c == '.' || c == ':';
  });
}

std::optional<FieldViolation> CheckProjectId(std::string_view project, std::string_view field) {
  if (IsValidProjectId(project)) {
    return std::nullopt;
  }
  return FieldViolation{std::string(field),
                        "The project id must be 1 to 100 characters, start with a letter or "
                        "digit and contain only letters, digits, '-', '_', '.' and ':'."};
}

std::optional<FieldViolation> CheckJobIdInName(std::string_view job_id) {
  if (validate::IsStoredJobId(job_id)) {
    return std::nullopt;
  }
  return FieldViolation{"name",
                        "Job id must start with a letter and contain only letters, digits and "
                        "underscores (at most 128 characters)."};
}

}  // namespace trainyard::control
