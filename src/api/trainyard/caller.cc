#include "api/trainyard/caller.h"

#include <string>
#include <utility>

#include "access/visible_projects.h"
#include "api/trainyard/encode.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

HttpResponse GetCaller(const CallerLookup& lookup, const HeldProjects& held,
                       const RoutedRequest& request) {
  const std::optional<access::Principal> caller = lookup(request.http);
  std::vector<std::string> stored;
  if (access::SeesAllProjects(caller)) {
    Result<std::vector<std::string>> read = held();
    if (!read.ok()) {
      return ErrorResponse(read.status());
    }
    stored = *std::move(read);
  }
  return JsonResponse(CallerJson(caller, stored).dump());
}

}  // namespace

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
