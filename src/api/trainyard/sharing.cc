#include "api/trainyard/sharing.h"

#include <string>

#include "api/trainyard/encode.h"
#include "sched/sharing_json.h"
#include "server/http_message.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

using control::SharingAdmin;

constexpr std::string_view kQuota = "/trainyard/v1/projects/{project}/quota";
constexpr std::string_view kClass = "/trainyard/v1/priorityClasses/{name}";

HttpResponse GetQuota(const SharingAdmin& admin, const RoutedRequest& request) {
  return JsonResponse(
      sched::EncodeProjectQuota(admin.Current()->QuotaOrDefault(request.Param("project"))));
}

HttpResponse PutQuota(SharingAdmin& admin, const RoutedRequest& request) {
  Result<sched::ProjectQuota> quota = admin.SetQuota(request.Param("project"), request.http.body);
  return quota.ok() ? JsonResponse(sched::EncodeProjectQuota(*quota))
                    : ErrorResponse(quota.status());
}

HttpResponse Done(const Status& status) {
  return status.ok() ? JsonResponse("{}") : ErrorResponse(status);
}

HttpResponse ListClasses(const SharingAdmin& admin) {
  return JsonResponse(PriorityClassesJson(admin.Current()->priority_classes).dump());
}

HttpResponse PutClass(SharingAdmin& admin, const RoutedRequest& request) {
  const std::string& name = request.Param("name");
  Result<int> value = admin.SetPriorityClass(name, request.http.body);
  return value.ok() ? JsonResponse(PriorityClassJson(name, *value).dump())
                    : ErrorResponse(value.status());
}

}  // namespace

void AddTrainyardV1SharingRoutes(Router& router, SharingAdmin& admin) {
  SharingAdmin* a = &admin;
  router.Add({.method = "GET",
              .pattern = "/trainyard/v1/sharing",
              .name = "trainyard.sharing.get",
              .handler =
                  [a](const RoutedRequest&) {
                    return JsonResponse(sched::EncodeSharingPolicy(*a->Current()));
                  },
              .access = {{.permission = "trainyard.quotas.list", .from = ProjectFrom::kAnyProject}},
              .audit = {.service = kTrainyardService,
                        .method = "trainyard.v1.SharingService.GetSharingPolicy",
                        .resource = AuditResource::kServer}});
  router.Add(
      {.method = "GET",
       .pattern = std::string(kQuota),
       .name = "trainyard.quotas.get",
       .handler = [a](const RoutedRequest& r) { return GetQuota(*a, r); },
       .access = {{.permission = "trainyard.quotas.get"}},
       .audit = {.service = kTrainyardService, .method = "trainyard.v1.SharingService.GetQuota"}});
  router.Add({.method = "PUT",
              .pattern = std::string(kQuota),
              .name = "trainyard.quotas.update",
              .handler = [a](const RoutedRequest& r) { return PutQuota(*a, r); },
              .access = {{.permission = "trainyard.quotas.update"}},
              .audit = {.service = kTrainyardService,
                        .method = "trainyard.v1.SharingService.UpdateQuota",
                        .mutating = true}});
  router.Add(
      {.method = "DELETE",
       .pattern = std::string(kQuota),
       .name = "trainyard.quotas.delete",
       .handler = [a](const RoutedRequest& r) { return Done(a->DeleteQuota(r.Param("project"))); },
       .access = {{.permission = "trainyard.quotas.delete"}},
       .audit = {.service = kTrainyardService,
                 .method = "trainyard.v1.SharingService.DeleteQuota",
                 .mutating = true}});
  router.Add({.method = "GET",
              .pattern = "/trainyard/v1/priorityClasses",
              .name = "trainyard.priorityClasses.list",
              .handler = [a](const RoutedRequest&) { return ListClasses(*a); },
              .access = {{.permission = "trainyard.priorityClasses.list",
                          .from = ProjectFrom::kAnyProject}},
              .audit = {.service = kTrainyardService,
                        .method = "trainyard.v1.SharingService.ListPriorityClasses",
                        .resource = AuditResource::kServer}});
  router.Add(
      {.method = "PUT",
       .pattern = std::string(kClass),
       .name = "trainyard.priorityClasses.update",
       .handler = [a](const RoutedRequest& r) { return PutClass(*a, r); },
       .access = {{.permission = "trainyard.priorityClasses.update", .from = ProjectFrom::kServer}},
       .audit = {.service = kTrainyardService,
                 .method = "trainyard.v1.SharingService.UpdatePriorityClass",
                 .mutating = true,
                 .resource = AuditResource::kServer}});
  router.Add(
      {.method = "DELETE",
       .pattern = std::string(kClass),
       .name = "trainyard.priorityClasses.delete",
       .handler =
           [a](const RoutedRequest& r) { return Done(a->DeletePriorityClass(r.Param("name"))); },
       .access = {{.permission = "trainyard.priorityClasses.delete", .from = ProjectFrom::kServer}},
       .audit = {.service = kTrainyardService,
                 .method = "trainyard.v1.SharingService.DeletePriorityClass",
                 .mutating = true,
                 .resource = AuditResource::kServer}});
}

}  // namespace trainyard::server
