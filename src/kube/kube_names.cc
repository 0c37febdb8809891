// Kubernetes name, label and quantity syntax (k8s.io/apimachinery/pkg/util/validation and
// api/resource), reproduced as character rules.
#include <algorithm>
#include <regex>
#include <string_view>

#include "kube/tfjob_validate.h"

namespace trainyard::kube {
namespace {

constexpr std::size_t kMaxLabelLength = 63;
constexpr std::size_t kMaxSubdomainLength = 253;

bool IsLower(char c) {
  return c >= 'a' && c <= 'z';
}
bool Digit(char c) {
  return c >= '0' && c <= '9';
}
bool Alnum(char c) {
  return IsLower(c) || Digit(c) || (c >= 'A' && c <= 'Z');
}

// A DNS label; `first` says what may start it (1035: a letter, 1123: a letter or a digit).
template <typename First>
bool IsDnsLabel(std::string_view name, First first) {
  if (name.empty() || name.size() > kMaxLabelLength || !first(name.front())) {
    return false;
  }
  if (!IsLower(name.back()) && !Digit(name.back())) {
    return false;
  }
  return std::ranges::all_of(name, [](char c) { return IsLower(c) || Digit(c) || c == '-'; });
}

bool IsDns1123Subdomain(std::string_view name) {
  if (name.empty() || name.size() > kMaxSubdomainLength) {
    return false;
  }
  std::size_t start = 0;
  while (start <= name.size()) {
    const std::size_t dot = std::min(name.find('.', start), name.size());
    if (!IsDns1123Label(name.substr(start, dot - start))) {
      return false;
    }
    start = dot + 1;
  }
  return true;
}

// The name part of a label key or a label value: ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9].
bool IsLabelName(std::string_view name) {
  if (name.empty() || name.size() > kMaxLabelLength || !Alnum(name.front()) ||
      !Alnum(name.back())) {
    return false;
  }
  return std::ranges::all_of(name,
                             [](char c) { return Alnum(c) || c == '-' || c == '_' || c == '.'; });
}

}  // namespace

bool IsDns1035Label(std::string_view name) {
  return IsDnsLabel(name, IsLower);
}

bool IsDns1123Label(std::string_view name) {
  return IsDnsLabel(name, [](char c) { return IsLower(c) || Digit(c); });
}

bool IsQualifiedName(std::string_view key) {
  const std::size_t slash = key.find('/');
  if (slash == std::string_view::npos) {
    return IsLabelName(key);
  }
  return IsDns1123Subdomain(key.substr(0, slash)) && IsLabelName(key.substr(slash + 1));
}

bool IsLabelValue(std::string_view value) {
  return value.empty() || IsLabelName(value);
}

bool IsQuantity(std::string_view quantity) {
  // resource.ParseQuantity's grammar: a signed decimal, then a binary suffix (Ki…Ei), a decimal
  // suffix (n u m k M G T P E) or an exponent.
  static const std::regex kQuantity(
      R"(^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?$)");
  return std::regex_match(quantity.begin(), quantity.end(), kQuantity);
}

}  // namespace trainyard::kube
