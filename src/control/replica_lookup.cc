#include "control/replica_lookup.h"

#include <utility>

namespace trainyard::control {

std::vector<ReplicaInfo> ShownReplicas(const ReplicaSource& running, const ReplicaSource& recorded,
                                       std::string_view project, std::string_view job_id,
                                       bool include_ended) {
  std::optional<std::vector<ReplicaInfo>> found;
  if (running) {
    found = running(project, job_id);
  }
  if (!found.has_value() && include_ended && recorded) {
    found = recorded(project, job_id);
  }
  return std::move(found).value_or(std::vector<ReplicaInfo>{});
}

}  // namespace trainyard::control
