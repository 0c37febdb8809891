// Engine task names <-> Kubeflow replicas. The engine names tasks "<role>-replica-<i>"
// (plan::TaskName; kube/ may not include plan/, so the rule is reproduced here as data).
#include <algorithm>
#include <charconv>
#include <string>

#include <fmt/format.h>

#include "kube/tfjob_mapping.h"

namespace trainyard::kube {
namespace {

constexpr std::string_view kTaskSuffix = "-replica-";

// Engine role name -> Kubeflow type, for every role but the master (whose type is the naming's
// primary type).
struct RoleType {
  std::string_view role;
  std::string_view type;
};
constexpr RoleType kRoles[] = {
    {"worker", kWorker},
    {"ps", kPS},
    {"evaluator", kEvaluator},
};
constexpr std::string_view kMasterRole = "master";

bool WorkerIsPrimary(const model::KubeflowNaming& naming) {
  return naming.primary_type == "worker";
}

}  // namespace

std::string PrimaryType(const model::KubeflowNaming& naming) {
  return CanonicalType(naming.primary_type).value_or(std::string(kChief));
}

std::string PodName(std::string_view job_name, std::string_view type, int index) {
  std::string name(job_name);
  std::ranges::replace(name, '/', '-');
  return fmt::format("{}-{}-{}", name, LowerType(type), index);
}

std::optional<KubeReplica> KubeReplicaOf(std::string_view task_name,
                                         const model::KubeflowNaming& naming) {
  const std::size_t at = task_name.rfind(kTaskSuffix);
  if (at == std::string_view::npos) {
    return std::nullopt;
  }
  const std::string_view role = task_name.substr(0, at);
  const std::string_view digits = task_name.substr(at + kTaskSuffix.size());
  int index = -1;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), index);
  if (digits.empty() || error != std::errc() || end != digits.data() + digits.size() || index < 0) {
    return std::nullopt;
  }
  if (role == kMasterRole) {
    return index == 0 ? std::optional(KubeReplica{PrimaryType(naming), 0}) : std::nullopt;
  }
  for (const RoleType& entry : kRoles) {
    if (entry.role == role) {
      const bool shifted = entry.type == kWorker && WorkerIsPrimary(naming);
      return KubeReplica{std::string(entry.type), shifted ? index + 1 : index};
    }
  }
  return std::nullopt;
}

std::optional<std::string> TaskNameOf(const KubeReplica& replica,
                                      const model::KubeflowNaming& naming) {
  if (replica.index < 0) {
    return std::nullopt;
  }
  const std::string primary = PrimaryType(naming);
  if (replica.type == primary && (primary != kWorker || replica.index == 0)) {
    return replica.index == 0 ? std::optional(fmt::format("{}{}0", kMasterRole, kTaskSuffix))
                              : std::nullopt;
  }
  for (const RoleType& entry : kRoles) {
    if (entry.type == replica.type) {
      const int index =
          entry.type == kWorker && WorkerIsPrimary(naming) ? replica.index - 1 : replica.index;
      return fmt::format("{}{}{}", entry.role, kTaskSuffix, index);
    }
  }
  return std::nullopt;
}

}  // namespace trainyard::kube
