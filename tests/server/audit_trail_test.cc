// The audit trail's tables and pure parts (server/audit_trail.h): every route has Google's names
// and the changing ones are exactly the mutations, the Kubernetes calls' names (with their
// version and watch), and the message of an error answer in each dialect.
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
                                               "storage.buckets.update",
                                               "storage.objects.insert",
                                               "storage.objects.upload",
                                               "storage.objects.delete",
                                               "storage.objects.patch",
                                               "storage.objects.compose",
                                               "storage.objects.rewrite",
                                               "trainyard.quotas.update",
                                               "trainyard.quotas.delete",
                                               "trainyard.priorityClasses.update",
                                               "trainyard.priorityClasses.delete",
                                               "kubeflow.tfjobs.create",
                                               "kubeflow.tfjobs.update",
                                               "kubeflow.tfjobs.patch",
                                               "kubeflow.tfjobs.delete"};
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

TEST(KubeAuditTest, NamesEachKubernetesCallAsItsApiServerDoes) {
  const struct {
    std::string_view route;
    std::string_view method;
    std::string_view target;
    std::string_view audit_method;
    std::string_view resource;  // "" when the path is not under /api/v1 or /apis/<g>/<v>
  } cases[] = {
      {"kubeflow.tfjobs.create", "POST", "/apis/kubeflow.org/v1/namespaces/p/tfjobs",
       "io.k8s.kubeflow.v1.tfjobs.create", "kubeflow.org/v1/namespaces/p/tfjobs"},
      {"kubeflow.tfjobs.patch", "PATCH",
       "/apis/kubeflow.org/v1/namespaces/p/tfjobs/mnist?fieldValidation=Strict",
       "io.k8s.kubeflow.v1.tfjobs.patch", "kubeflow.org/v1/namespaces/p/tfjobs/mnist"},
      {"kubeflow.tfjobs.update", "PUT", "/apis/kubeflow.org/v1beta2/namespaces/p/tfjobs/mnist",
       "io.k8s.kubeflow.v1beta2.tfjobs.update", "kubeflow.org/v1beta2/namespaces/p/tfjobs/mnist"},
      {"kubeflow.tfjobs.delete", "DELETE", "/apis/kubeflow.org/v1/namespaces/p/tfjobs/mnist",
       "io.k8s.kubeflow.v1.tfjobs.delete", "kubeflow.org/v1/namespaces/p/tfjobs/mnist"},
      {"kubeflow.tfjobs.list", "GET", "/apis/kubeflow.org/v1/tfjobs?watch=true",
       "io.k8s.kubeflow.v1.tfjobs.watch", "kubeflow.org/v1/tfjobs"},
      {"kubeflow.tfjobs.list", "GET", "/apis/kubeflow.org/v1/tfjobs?watch=0",
       "io.k8s.kubeflow.v1.tfjobs.list", "kubeflow.org/v1/tfjobs"},
      {"kubeflow.tfjobs.getStatus", "GET", "/apis/kubeflow.org/v1/namespaces/p/tfjobs/x/status",
       "io.k8s.kubeflow.v1.tfjobs.status.get", "kubeflow.org/v1/namespaces/p/tfjobs/x/status"},
      {"core.pods.log", "GET", "/api/v1/namespaces/p/pods/mnist-worker-0/log",
       "io.k8s.core.v1.pods.log.get", "core/v1/namespaces/p/pods/mnist-worker-0/log"},
      {"core.pods.list", "GET", "/api/v1/pods?watch=1", "io.k8s.core.v1.pods.watch",
       "core/v1/pods"},
      {"core.events.list", "GET", "/api/v1/namespaces/p/events", "io.k8s.core.v1.events.list",
       "core/v1/namespaces/p/events"},
      {"core.namespaces.list", "GET", "/api/v1/namespaces", "io.k8s.core.v1.namespaces.list",
       "core/v1/namespaces"},
      {"kube.version", "GET", "/version", "io.k8s.version.get", ""},
      {"kube.discovery", "GET", "/apis", "io.k8s.discovery.get", ""},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(std::string(c.method) + " " + std::string(c.target));
    const RouteAudit* row = FindRouteAudit(c.route);
    ASSERT_NE(row, nullptr);
    EXPECT_EQ(row->service, "k8s.io");
    const HttpRequest http{.method = std::string(c.method), .target = std::string(c.target)};
    RoutedRequest routed{.http = http, .route = c.route};
    if (const std::size_t query = c.target.find('?'); query != std::string_view::npos) {
      const std::string_view pair = c.target.substr(query + 1);
      routed.query.emplace_back(pair.substr(0, pair.find('=')), pair.substr(pair.find('=') + 1));
    }
    EXPECT_EQ(AuditMethodOf(*row, routed), c.audit_method);
    const std::optional<KubePath> path = KubePathOf(c.target);
    EXPECT_EQ(path.has_value() ? path->resource : "", c.resource);
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
