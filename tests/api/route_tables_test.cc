// Each route's row (server/router.h `Route`, server/route_rules.h) as the server checks it at
// start (api/access_check.h `RouteProblems`): a planted bad row is named, and every route the
// server serves, with every part of it on, has its access rules and audit method; only the calls
// that change something are mutating, and the Kubernetes rows say what a 403 names.
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/access_check.h"
#include "api/audit_trail.h"
#include "app/server.h"
#include "base/clock.h"
#include "catalog/catalog.h"
#include "control/job_controller.h"
#include "control/sharing_admin.h"
#include "fakes/temp_dir.h"
#include "store/bucket_store.h"
#include "store/sharing_store.h"
#include "store/sqlite_job_store.h"

namespace trainyard::server {
namespace {

HttpResponse Nothing(const RoutedRequest&) {
  return {};
}

// A planted row with `access` and `audit`.
Route Planted(std::vector<RouteAccess> access, RouteAudit audit) {
  return Route{.method = "GET",
               .pattern = "/x",
               .name = "x.get",
               .handler = Nothing,
               .access = std::move(access),
               .audit = std::move(audit)};
}

Route Open(Route route) {
  route.open = true;
  return route;
}

TEST(RouteTablesTest, NamesWhatABadRowLacks) {
  const RouteAudit audit{.service = kMlService, .method = "google.cloud.ml.v1.JobService.GetJob"};
  const RouteAccess get{.permission = "ml.jobs.get"};
  const struct {
    std::string name;
    Route route;
    std::vector<std::string> problems;
  } cases[] = {
      {"Complete", Planted({get}, audit), {}},
      {"Open", Open(Planted({}, {})), {}},
      {"AnyCaller", Planted({{.from = ProjectFrom::kAnyCaller}}, audit), {}},
      {"NoAccessRule", Planted({}, audit), {R"(route "x.get" has no access rule)"}},
      {"UnknownPermission",
       Planted({get, {.permission = "ml.jobs.nope"}}, audit),
       {R"(route "x.get" names the unknown permission "ml.jobs.nope")"}},
      {"NoPermission", Planted({{}}, audit), {R"(route "x.get" names the unknown permission "")"}},
      {"AnyCallerWithAPermission",
       Planted({{.permission = "ml.jobs.get", .from = ProjectFrom::kAnyCaller}}, audit),
       {R"(route "x.get" names the unknown permission "ml.jobs.get")"}},
      {"NamespaceWithoutKubernetesVerb",
       Planted({{.permission = "ml.jobs.get", .from = ProjectFrom::kNamespace}}, audit),
       {R"(route "x.get" takes its project from a namespace but names no Kubernetes verb and resource)"}},
      {"NoAuditMethod",
       Planted({get}, {.service = kMlService}),
       {R"(route "x.get" has no audit service and method)"}},
      {"MutatingWithoutAuditMethod",
       Planted({get}, {.mutating = true}),
       {R"(route "x.get" has no audit service and method)"}},
      {"OpenWithRules",
       Open(Planted({get}, {})),
       {R"(route "x.get" is open to anyone yet has access rules or an audit method)"}},
      {"OpenWithAuditMethod",
       Open(Planted({}, audit)),
       {R"(route "x.get" is open to anyone yet has access rules or an audit method)"}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(RouteProblems(c.route), c.problems) << c.name;
  }
}

TEST(RouteTablesTest, AListThatWatchesIsTheWatchVerb) {
  const RouteAccess rule{.permission = "ml.jobs.list",
                         .from = ProjectFrom::kNamespace,
                         .variable = "namespace",
                         .kube = {.verb = "list", .group = "", .resource = "pods"}};
  const HttpRequest http{.method = "GET", .target = "/api/v1/pods"};
  const struct {
    std::vector<std::pair<std::string, std::string>> query;
    std::string_view verb;
  } cases[] = {
      {{}, "list"},
      {{{"watch", "1"}}, "watch"},
      {{{"watch", "true"}}, "watch"},
      {{{"watch", "false"}}, "list"},
      {{{"watch", "0"}}, "list"},
  };
  for (const auto& c : cases) {
    const RoutedRequest routed{
        .http = http, .route = "core.pods.list", .params = {}, .query = c.query};
    EXPECT_EQ(KubeVerbOf(rule, routed), c.verb);
  }
}

// A server with every part on (storage, logging, trainyard v1 with its replicas, cluster and
// sharing routes, Kubernetes), not started: its routes are those of any server.
class EveryRouteTest : public ::testing::Test {
 protected:
  EveryRouteTest() {
    store_ = *store::OpenSqliteJobStore(dir_.File("trainyard.db"));
    buckets_ = *store::OpenFileBucketStore(dir_.File("buckets"), dir_.File("storage.db"), clock_);
    sharing_store_ = *store::OpenSharingStore(store::SharingStorePath(dir_.path().string()));
    sharing_ =
        std::make_unique<control::SharingAdmin>(*sharing_store_, catalog::Catalog::Builtin());
    controller_ =
        std::make_unique<control::JobController>(*store_, catalog::Catalog::Builtin(), clock_);
    server_ = std::make_unique<Server>(
        HttpServerOptions{}, *controller_, *store_, buckets_.get(), clock_, dir_.path().string(),
        [](std::string_view, std::string_view) { return std::nullopt; },
        std::function<std::vector<kube::NodeView>()>(), ServerAccess{},
        TrainyardV1Sources{.cluster = [] { return std::optional<control::ClusterView>(); },
                           .recorded_replicas = {},
                           .sharing = sharing_.get()});
  }

  // The audit row of the route `name` for `method`; nullptr when there is none.
  const RouteAudit* AuditOf(std::string_view method, std::string_view name) const {
    for (const Route* route : server_->Routes()) {
      if (route->method == method && route->name == name) {
        return &route->audit;
      }
    }
    return nullptr;
  }

  testing::TempDir dir_;
  SystemClock clock_;
  std::unique_ptr<store::JobStore> store_;
  std::unique_ptr<store::BucketStore> buckets_;
  std::unique_ptr<store::SharingStore> sharing_store_;
  std::unique_ptr<control::SharingAdmin> sharing_;
  std::unique_ptr<control::JobController> controller_;
  std::unique_ptr<Server> server_;
};

TEST_F(EveryRouteTest, HasItsRulesAndOnlyChangesAreMutating) {
  const std::set<std::string> mutating = {"jobs.create",
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
                                          "kubeflow.tfjobs.delete",
                                          "kubeflow.tfjobs.deletecollection"};
  const std::set<std::string> open = {"healthz", "discovery.apis.getRest", "discovery.rest"};
  std::set<std::string> names;
  for (const Route* route : server_->Routes()) {
    SCOPED_TRACE(route->method + " " + route->pattern);
    names.insert(route->name);
    EXPECT_EQ(RouteProblems(*route), std::vector<std::string>());
    EXPECT_EQ(route->open, open.contains(route->name));
    EXPECT_EQ(route->audit.mutating, mutating.contains(route->name));
  }
  for (const std::string& name : mutating) {
    EXPECT_TRUE(names.contains(name)) << name;
  }
  EXPECT_GE(names.size(), 60u);
  EXPECT_EQ(AuditOf("POST", "jobs.create")->method, "google.cloud.ml.v1.JobService.CreateJob");
  EXPECT_EQ(AuditOf("POST", "storage.objects.insert")->method, "storage.objects.create");
  EXPECT_EQ(AuditOf("POST", "trainyard.jobs.suspend")->method,
            "trainyard.v1.JobService.SuspendJob");
}

// A Kubernetes route's project is its namespace and its 403 names a verb and a resource; the
// discovery routes need only a token.
TEST_F(EveryRouteTest, KubernetesRowsNameTheirNamespaceAndVerb) {
  int kube_routes = 0;
  for (const Route* route : server_->Routes()) {
    if (route->audit.service != kKubernetesService) {
      continue;
    }
    SCOPED_TRACE(route->name);
    ++kube_routes;
    ASSERT_EQ(route->access.size(), 1u);
    const RouteAccess& rule = route->access.front();
    if (rule.from == ProjectFrom::kAnyCaller) {
      EXPECT_TRUE(rule.permission.empty());
      continue;
    }
    EXPECT_EQ(rule.from, ProjectFrom::kNamespace);
    EXPECT_EQ(rule.variable, "namespace");
    EXPECT_FALSE(rule.kube.verb.empty());
    EXPECT_FALSE(rule.kube.resource.empty());
  }
  EXPECT_GE(kube_routes, 25);
}

// The Kubernetes calls' audit names (with their version and watch) and resources.
TEST_F(EveryRouteTest, NamesEachKubernetesCallAsItsApiServerDoes) {
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
    const RouteAudit* row = AuditOf(c.method, c.route);
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

}  // namespace
}  // namespace trainyard::server
