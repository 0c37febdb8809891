#include "model/project_id.h"

#include <algorithm>
#include <cstddef>

namespace trainyard::model {
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

}  // namespace trainyard::model
