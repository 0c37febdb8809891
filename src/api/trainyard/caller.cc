#include "api/trainyard/caller.h"

#include <algorithm>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "access/audit.h"
#include "access/roles.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

constexpr std::string_view kDefaultProject = "default";

HttpResponse GetCaller(const CallerLookup& lookup, const HeldProjects& held,
                       const RoutedRequest& request) {
  const std::optional<access::Principal> caller = lookup(request.http);
  std::vector<std::string> stored;
  if (SeesAllProjects(caller)) {
    Result<std::vector<std::string>> read = held();
    if (!read.ok()) {
      return ErrorResponse(read.status());
    }
    stored = *std::move(read);
  }
  nlohmann::json grants = nlohmann::json::array();
  for (const access::Grant& grant :
       caller.has_value() ? caller->grants : std::vector<access::Grant>{}) {
    nlohmann::json permissions = nlohmann::json::array();
    for (const std::string& permission : access::AllPermissions()) {
      if (access::RoleHolds(grant.role, permission)) {
        permissions.push_back(permission);
      }
    }
    grants.push_back({{"role", std::string(access::RoleName(grant.role))},
                      {"project", grant.project},
                      {"permissions", std::move(permissions)}});
  }
  return JsonResponse(
      nlohmann::json{{"name", caller.has_value() ? caller->name : std::string(access::kAnonymous)},
                     {"grants", std::move(grants)},
                     {"allProjects", SeesAllProjects(caller)},
                     {"projects", VisibleProjects(caller, stored)}}
          .dump());
}

}  // namespace

bool SeesAllProjects(const std::optional<access::Principal>& caller) {
  return !caller.has_value() || std::ranges::any_of(caller->grants, [](const access::Grant& grant) {
    return access::RoleSpansProjects(grant.role);
  });
}

std::vector<std::string> VisibleProjects(const std::optional<access::Principal>& caller,
                                         const std::vector<std::string>& held) {
  std::vector<std::string> projects;
  if (SeesAllProjects(caller)) {
    projects = held;
    projects.emplace_back(kDefaultProject);
  }
  if (caller.has_value()) {
    for (const access::Grant& grant : caller->grants) {
      if (!grant.project.empty()) {
        projects.push_back(grant.project);
      }
    }
  }
  std::sort(projects.begin(), projects.end());
  projects.erase(std::unique(projects.begin(), projects.end()), projects.end());
  return projects;
}

void AddTrainyardV1CallerRoute(Router& router, CallerLookup caller, HeldProjects held) {
  router.Add({.method = "GET",
              .pattern = "/trainyard/v1/caller",
              .name = "trainyard.caller.get",
              .handler = [caller = std::move(caller), held = std::move(held)](
                             const RoutedRequest& r) { return GetCaller(caller, held, r); },
              .access = {{.permission = "ml.jobs.list", .from = ProjectFrom::kAnyProject}},
              .audit = {.service = kTrainyardService,
                        .method = "trainyard.v1.CallerService.GetCaller",
                        .resource = AuditResource::kServer}});
}

}  // namespace trainyard::server
