#include "server/trainyard_v1_sharing.h"

#include <string>

#include <nlohmann/json.hpp>

#include "sched/sharing_json.h"
#include "server/http_message.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

using control::SharingAdmin;

constexpr std::string_view kQuota = "/trainyard/v1/projects/{project}/quota";
constexpr std::string_view kClass = "/trainyard/v1/priorityClasses/{name}";

HttpResponse GetQuota(const SharingAdmin& admin, const RoutedRequest& request) {
  const std::string& project = request.Param("project");
  const control::SharingPolicyPtr policy = admin.Current();
  const sched::ProjectQuota* quota = policy->QuotaOf(project);
  return JsonResponse(sched::EncodeProjectQuota(
      quota != nullptr ? *quota : sched::ProjectQuota{.project = project}));
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
  nlohmann::json classes = nlohmann::json::object();
  for (const auto& [name, value] : admin.Current()->priority_classes) {
    classes[name] = value;
  }
  return JsonResponse(nlohmann::json{{"priorityClasses", std::move(classes)}}.dump());
}

HttpResponse PutClass(SharingAdmin& admin, const RoutedRequest& request) {
  const std::string& name = request.Param("name");
  Result<int> value = admin.SetPriorityClass(name, request.http.body);
  return value.ok() ? JsonResponse(nlohmann::json{{"name", name}, {"value", *value}}.dump())
                    : ErrorResponse(value.status());
}

}  // namespace

void AddTrainyardV1SharingRoutes(Router& router, SharingAdmin& admin) {
  SharingAdmin* a = &admin;
  router.Add(
      {"GET", "/trainyard/v1/sharing", "trainyard.sharing.get", {}, [a](const RoutedRequest&) {
         return JsonResponse(sched::EncodeSharingPolicy(*a->Current()));
       }});
  router.Add({"GET", std::string(kQuota), "trainyard.quotas.get", {}, [a](const RoutedRequest& r) {
                return GetQuota(*a, r);
              }});
  router.Add(
      {"PUT", std::string(kQuota), "trainyard.quotas.update", {}, [a](const RoutedRequest& r) {
         return PutQuota(*a, r);
       }});
  router.Add(
      {"DELETE", std::string(kQuota), "trainyard.quotas.delete", {}, [a](const RoutedRequest& r) {
         return Done(a->DeleteQuota(r.Param("project")));
       }});
  router.Add({"GET",
              "/trainyard/v1/priorityClasses",
              "trainyard.priorityClasses.list",
              {},
              [a](const RoutedRequest&) { return ListClasses(*a); }});
  router.Add({"PUT",
              std::string(kClass),
              "trainyard.priorityClasses.update",
              {},
              [a](const RoutedRequest& r) { return PutClass(*a, r); }});
  router.Add(
      {"DELETE",
       std::string(kClass),
       "trainyard.priorityClasses.delete",
       {},
       [a](const RoutedRequest& r) { return Done(a->DeletePriorityClass(r.Param("name"))); }});
}

}  // namespace trainyard::server
