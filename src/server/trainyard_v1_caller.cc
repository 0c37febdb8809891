#include "server/trainyard_v1_caller.h"

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "access/audit.h"
#include "access/roles.h"

namespace trainyard::server {
namespace {

HttpResponse GetCaller(const CallerLookup& lookup, const RoutedRequest& request) {
  const std::optional<access::Principal> caller = lookup(request.http);
  if (!caller) {
    return JsonResponse(nlohmann::json{
        {"name", std::string(access::kAnonymous)},
        {"grants", nlohmann::json::array()},
        {"allProjects",
         true}}.dump());
  }
  nlohmann::json grants = nlohmann::json::array();
  bool all_projects = false;
  for (const access::Grant& grant : caller->grants) {
    all_projects = all_projects || access::RoleSpansProjects(grant.role);
    grants.push_back(
        {{"role", std::string(access::RoleName(grant.role))}, {"project", grant.project}});
  }
  return JsonResponse(nlohmann::json{
      {"name", caller->name}, {"grants", std::move(grants)}, {"allProjects", all_projects}}
                          .dump());
}

}  // namespace

void AddTrainyardV1CallerRoute(Router& router, CallerLookup caller) {
  router.Add(
      {"GET",
       "/trainyard/v1/caller",
       "trainyard.caller.get",
       {},
       [caller = std::move(caller)](const RoutedRequest& r) { return GetCaller(caller, r); }});
}

}  // namespace trainyard::server
