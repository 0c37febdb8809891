#include "kube/tfjob.h"

#include <algorithm>
#include <cctype>

namespace trainyard::kube {
namespace {

char ToLower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

}  // namespace

const ReplicaSpec* TFJob::Find(std::string_view type) const {
  const auto it = std::ranges::find(replica_specs, type, &ReplicaSpec::type);
  return it == replica_specs.end() ? nullptr : &*it;
}

std::string LowerType(std::string_view type) {
  std::string lower(type);
  std::ranges::transform(lower, lower.begin(), ToLower);
  return lower;
}

std::optional<std::string> CanonicalType(std::string_view key) {
  const std::string lower = LowerType(key);
  for (const std::string_view type : kReplicaTypes) {
    if (LowerType(type) == lower) {
      return std::string(type);
    }
  }
  return std::nullopt;
}

}  // namespace trainyard::kube
