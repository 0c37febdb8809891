// The route tables the server checks at start (server/access_check.h `RouteTableProblems`):
// every route, the Kubernetes ones included, has an access row and an audit row, and the
// Kubernetes rows say what a 403 names and where the project comes from.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "server/access_check.h"
#include "server/audit_trail.h"
#include "server/kube_api.h"

namespace trainyard::server {
namespace {

TEST(RouteTablesTest, EveryKubernetesRouteHasItsAccessAndAuditRows) {
  const std::vector<std::string> names = KubeApi::RouteNames();
  ASSERT_GE(names.size(), 15u);
  EXPECT_EQ(RouteTableProblems(names, {}), std::vector<std::string>());
}

TEST(RouteTablesTest, NamesEachRouteMissingARow) {
  const struct {
    std::vector<std::string> routes;
    std::vector<std::string> problems;
  } cases[] = {
      {{"jobs.create", "kubeflow.tfjobs.create"}, {}},
      {{"kubeflow.tfjobs.nope"},
       {R"(route "kubeflow.tfjobs.nope" has no access rule (server/access_check.cc))",
        R"(route "kubeflow.tfjobs.nope" has no audit row (server/audit_trail.cc))"}},
      {{"healthz", "core.pods.log"},
       {R"(route "healthz" has no access rule (server/access_check.cc))",
        R"(route "healthz" has no audit row (server/audit_trail.cc))"}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(RouteTableProblems(c.routes, {}), c.problems) << c.routes.front();
  }
  // An open route needs no rows.
  EXPECT_EQ(
      RouteTableProblems({"healthz"}, [](std::string_view name) { return name == "healthz"; }),
      std::vector<std::string>());
}

// A Kubernetes route's project is its namespace and its 403 names a verb and a resource; the
// discovery routes need only a token.
TEST(RouteTablesTest, KubernetesRowsNameTheirNamespaceAndVerb) {
  for (const std::string& name : KubeApi::RouteNames()) {
    SCOPED_TRACE(name);
    bool listed = false;
    for (const RouteAccess& row : RouteAccessTable()) {
      if (row.route != name) {
        continue;
      }
      listed = true;
      if (row.from == ProjectFrom::kAnyCaller) {
        EXPECT_TRUE(row.permission.empty());
        continue;
      }
      EXPECT_EQ(row.from, ProjectFrom::kNamespace);
      EXPECT_EQ(row.variable, "namespace");
      EXPECT_FALSE(row.kube.verb.empty());
      EXPECT_FALSE(row.kube.resource.empty());
    }
    EXPECT_TRUE(listed);
  }
}

TEST(RouteTablesTest, AListThatWatchesIsTheWatchVerb) {
  const auto row = std::ranges::find(RouteAccessTable(), std::string_view("core.pods.list"),
                                     &RouteAccess::route);
  ASSERT_NE(row, RouteAccessTable().end());
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
    EXPECT_EQ(KubeVerbOf(*row, routed), c.verb);
  }
}

}  // namespace
}  // namespace trainyard::server
