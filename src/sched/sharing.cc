#include "sched/sharing.h"

#include <algorithm>

namespace trainyard::sched {

const ProjectQuota* SharingPolicy::QuotaOf(std::string_view project) const {
  const auto found =
      std::ranges::lower_bound(projects, project, std::less<>{},
                               [](const ProjectQuota& q) -> std::string_view { return q.project; });
  return found != projects.end() && found->project == project ? &*found : nullptr;
}

ProjectQuota SharingPolicy::QuotaOrDefault(std::string_view project) const {
  const ProjectQuota* quota = QuotaOf(project);
  return quota != nullptr ? *quota : ProjectQuota{.project = std::string(project)};
}

}  // namespace trainyard::sched
