#include "kube/pod_changes.h"

namespace trainyard::kube {

std::vector<PodChange> PodChanges(const std::map<std::string, Pod>& before,
                                  const std::map<std::string, Pod>& after) {
  std::vector<PodChange> changes;
  for (const auto& [key, pod] : after) {
    const auto was = before.find(key);
    if (was == before.end()) {
      changes.push_back(PodChange{"ADDED", pod});
    } else if (!(was->second == pod)) {
      changes.push_back(PodChange{"MODIFIED", pod});
    }
  }
  for (const auto& [key, pod] : before) {
    if (!after.contains(key)) {
      changes.push_back(PodChange{"DELETED", pod});
    }
  }
  return changes;
}

}  // namespace trainyard::kube
