// The audit trail's tables and pure parts (server/audit_trail.h): every route has Google's names
// and the changing ones are exactly the mutations, the Kubernetes calls' names, and the message
// of an error answer in each dialect.
#include "server/audit_trail.h"

#include <algorithm>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "server/access_check.h"

namespace trainyard::server {
namespace {

TEST(RouteAuditTableTest, EveryRouteOfTheAccessTableHasNamesAndOnlyChangesAreMutating) {
  const std::set<std::string_view> mutating = {"jobs.create",
                                               "jobs.patch",
                                               "jobs.cancel",
                                               "trainyard.jobs.suspend",
                                               "trainyard.jobs.resume",
                                               "aiplatform.customJobs.create",
                                               "aiplatform.customJobs.cancel",
                                               "aiplatform.hyperparameterTuningJobs.create",
                                               "aiplatform.hyperparameterTuningJobs.cancel",
                                               "storage.buckets.insert",
                                               "storage.buckets.delete",
                                               "storage.buckets.patch",
                                               "storage.objects.insert",
                                               "storage.objects.upload",
                                               "storage.objects.delete",
                                               "storage.objects.patch",
                                               "storage.objects.compose",
                                               "storage.objects.rewrite",
                                               "trainyard.quotas.update",
                                               "trainyard.quotas.delete",
                                               "trainyard.priorityClasses.update",
                                               "trainyard.priorityClasses.delete"};
  for (const RouteAccess& access : RouteAccessTable()) {
    const RouteAudit* row = FindRouteAudit(access.route);
    ASSERT_NE(row, nullptr) << access.route;
    EXPECT_FALSE(row->service.empty()) << access.route;
    EXPECT_FALSE(row->method.empty()) << access.route;
    EXPECT_EQ(row->mutating, mutating.contains(access.route)) << access.route;
  }
  for (const RouteAudit& row : RouteAuditTable()) {
    EXPECT_EQ(std::ranges::count(RouteAuditTable(), row.route, &RouteAudit::route), 1) << row.route;
  }
  EXPECT_EQ(FindRouteAudit("jobs.create")->method, "google.cloud.ml.v1.JobService.CreateJob");
  EXPECT_EQ(FindRouteAudit("storage.objects.insert")->method, "storage.objects.create");
  EXPECT_EQ(FindRouteAudit("trainyard.jobs.suspend")->method, "trainyard.v1.JobService.SuspendJob");
  EXPECT_EQ(FindRouteAudit("nope"), nullptr);
}

TEST(AuditTrailTest, NotesChangesAndRefusalsOnly) {
  EXPECT_TRUE(AuditTrail::MustNote("jobs.create", false, false));
  EXPECT_FALSE(AuditTrail::MustNote("jobs.get", false, false));
  EXPECT_TRUE(AuditTrail::MustNote("jobs.get", true, false));
  EXPECT_TRUE(AuditTrail::MustNote("jobs.get", false, true));
}

TEST(KubeAuditTargetTest, NamesEachKubernetesCall) {
  const struct {
    std::string_view method;
    std::string_view target;
    std::optional<KubeAuditTarget> expected;
  } cases[] = {
      {"POST", "/apis/kubeflow.org/v1/namespaces/p/tfjobs",
       KubeAuditTarget{"io.k8s.kubeflow.v1.tfjobs.create", "kubeflow.org/v1/namespaces/p/tfjobs",
                       "p", true}},
      {"PATCH", "/apis/kubeflow.org/v1/namespaces/p/tfjobs/mnist?fieldValidation=Strict",
       KubeAuditTarget{"io.k8s.kubeflow.v1.tfjobs.patch",
                       "kubeflow.org/v1/namespaces/p/tfjobs/mnist", "p", true}},
      {"PUT", "/apis/kubeflow.org/v1beta2/namespaces/p/tfjobs/mnist",
       KubeAuditTarget{"io.k8s.kubeflow.v1beta2.tfjobs.update",
                       "kubeflow.org/v1beta2/namespaces/p/tfjobs/mnist", "p", true}},
      {"DELETE", "/apis/kubeflow.org/v1/namespaces/p/tfjobs/mnist",
       KubeAuditTarget{"io.k8s.kubeflow.v1.tfjobs.delete",
                       "kubeflow.org/v1/namespaces/p/tfjobs/mnist", "p", true}},
      {"GET", "/apis/kubeflow.org/v1/tfjobs?watch=true",
       KubeAuditTarget{"io.k8s.kubeflow.v1.tfjobs.watch", "kubeflow.org/v1/tfjobs", "", false}},
      {"GET", "/api/v1/namespaces/p/pods/mnist-worker-0/log",
       KubeAuditTarget{"io.k8s.core.v1.pods.log.get",
                       "core/v1/namespaces/p/pods/mnist-worker-0/log", "p", false}},
      {"GET", "/api/v1/namespaces/p/events",
       KubeAuditTarget{"io.k8s.core.v1.events.list", "core/v1/namespaces/p/events", "p", false}},
      {"GET", "/version", std::nullopt},
      {"GET", "/apis/kubeflow.org/v1", std::nullopt},
      {"GET", "/api/v1/namespaces",
       KubeAuditTarget{"io.k8s.core.v1.namespaces.list", "core/v1/namespaces", "", false}},
      {"OPTIONS", "/apis/kubeflow.org/v1/namespaces/p/tfjobs", std::nullopt},
      {"GET", "", std::nullopt},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.method) + " " + std::string(c.target));
    const std::optional<KubeAuditTarget> got = KubeAuditTargetOf(c.method, c.target);
    ASSERT_EQ(got.has_value(), c.expected.has_value());
    if (got.has_value()) {
      EXPECT_EQ(got->method, c.expected->method);
      EXPECT_EQ(got->resource, c.expected->resource);
      EXPECT_EQ(got->project, c.expected->project);
      EXPECT_EQ(got->mutating, c.expected->mutating);
    }
  }
}

TEST(ErrorMessageTest, ReadsEachDialectsMessage) {
  const struct {
    std::string body;
    std::string expected;
  } cases[] = {
      {R"({"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}})", "denied"},
      {R"({"error":{"code":404,"message":"No such object: b/o","errors":[]}})",
       "No such object: b/o"},
      {R"({"kind":"Status","status":"Failure","message":"tfjobs is forbidden","code":403})",
       "tfjobs is forbidden"},
      {"not json", ""},
      {R"({"error":"text"})", ""},
      {"", ""},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ErrorMessageOf(HttpResponse{.status = 403, .body = c.body}), c.expected) << c.body;
  }
}

}  // namespace
}  // namespace trainyard::server
