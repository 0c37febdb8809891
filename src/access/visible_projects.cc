#include "access/visible_projects.h"

#include <algorithm>

#include "access/roles.h"

namespace trainyard::access {

bool SeesAllProjects(const std::optional<Principal>& caller) {
  return !caller.has_value() || std::ranges::any_of(caller->grants, [](const Grant& grant) {
    return RoleSpansProjects(grant.role);
  });
}

std::vector<std::string> VisibleProjects(const std::optional<Principal>& caller,
                                         const std::vector<std::string>& held) {
  std::vector<std::string> projects;
  if (SeesAllProjects(caller)) {
    projects = held;
    projects.emplace_back(kDefaultProject);
  }
  if (caller.has_value()) {
    for (const Grant& grant : caller->grants) {
      if (!grant.project.empty()) {
        projects.push_back(grant.project);
      }
    }
  }
  std::sort(projects.begin(), projects.end());
  projects.erase(std::unique(projects.begin(), projects.end()), projects.end());
  return projects;
}

}  // namespace trainyard::access
