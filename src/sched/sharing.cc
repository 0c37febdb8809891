#include "sched/sharing.h"

#include <algorithm>

namespace trainyard::sched {

const ProjectQuota* SharingPolicy::QuotaOf(std::string_view project) const {
  const auto found =
      std::ranges::lower_bound(projects, project, std::less<>{},
                               [](const ProjectQuota& q) -> std::string_view { return q.project; });
  return found != projects.end() && found->project == project ? &*found : nullptr;
}

}  // namespace trainyard::sched
