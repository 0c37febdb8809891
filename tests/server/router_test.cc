#include "server/router.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trainyard::server {
namespace {

// Each handler answers with its route's name and what it was given, as JSON.
Route Echo(std::string method, std::string pattern, std::string name,
           std::vector<std::string> query_params = {}) {
  return Route{std::move(method), std::move(pattern), name, std::move(query_params),
               [name](const RoutedRequest& r) {
                 nlohmann::json body = {{"handler", name}};
                 for (const auto& [k, v] : r.params) {
                   body["params"][k] = v;
                 }
                 for (const auto& [k, v] : r.query) {
                   body["query"][k] = v;
                 }
                 return JsonResponse(body.dump());
               }};
}

class RouterTest : public ::testing::Test {
 protected:
  RouterTest() {
    router_.Add(Echo("POST", "/v1/projects/{project}/jobs", "jobs.create"));
    router_.Add(Echo("GET", "/v1/projects/{project}/jobs", "jobs.list", {"pageSize"}));
    router_.Add(Echo("GET", "/v1/projects/{project}/jobs/{jobId}", "jobs.get"));
    router_.Add(Echo("PATCH", "/v1/projects/{project}/jobs/{jobId}", "jobs.patch"));
    router_.Add(Echo("POST", "/v1/projects/{project}/jobs/{jobId}:cancel", "jobs.cancel"));
    router_.Add(Echo("GET", "/v1/projects/{project}:getConfig", "projects.getConfig"));
  }

  HttpResponse Dispatch(std::string method, std::string target) {
    return router_.Dispatch(HttpRequest{.method = std::move(method), .target = std::move(target)});
  }

  Router router_;
};

struct RouteCase {
  std::string name;
  std::string method;
  std::string target;
  int status;
  std::string route;    // the response's metrics label
  std::string handler;  // "" when no handler ran
  nlohmann::json params;
};

class RouterTableTest : public RouterTest, public ::testing::WithParamInterface<RouteCase> {};

TEST_P(RouterTableTest, Routes) {
  const RouteCase& tc = GetParam();
  const HttpResponse response = Dispatch(tc.method, tc.target);
  EXPECT_EQ(response.status, tc.status) << response.body;
  EXPECT_EQ(response.route, tc.route);
  const auto body = nlohmann::json::parse(response.body);
  if (tc.handler.empty()) {
    EXPECT_TRUE(body.contains("error")) << response.body;
    EXPECT_EQ(body["error"]["code"], tc.status);
    return;
  }
  EXPECT_EQ(body["handler"], tc.handler);
  EXPECT_EQ(body.value("params", nlohmann::json::object()), tc.params);
}

const auto kProjectJob = nlohmann::json{{"project", "p"}, {"jobId", "j"}};

INSTANTIATE_TEST_SUITE_P(
    Table, RouterTableTest,
    ::testing::Values(
        RouteCase{"Create",
                  "POST",
                  "/v1/projects/p/jobs?alt=json",
                  200,
                  "jobs.create",
                  "jobs.create",
                  {{"project", "p"}}},
        RouteCase{"List",
                  "GET",
                  "/v1/projects/p/jobs",
                  200,
                  "jobs.list",
                  "jobs.list",
                  {{"project", "p"}}},
        RouteCase{"Get", "GET", "/v1/projects/p/jobs/j", 200, "jobs.get", "jobs.get", kProjectJob},
        RouteCase{"Patch", "PATCH", "/v1/projects/p/jobs/j", 200, "jobs.patch", "jobs.patch",
                  kProjectJob},
        RouteCase{"CancelBeatsGetOfJobNamedWithVerb", "POST", "/v1/projects/p/jobs/j:cancel", 200,
                  "jobs.cancel", "jobs.cancel", kProjectJob},
        RouteCase{"GetOnCancelPathIs405",
                  "GET",
                  "/v1/projects/p/jobs/j:cancel",
                  405,
                  "unmatched",
                  "",
                  {}},
        RouteCase{"OtherVerbIsAJobId",
                  "GET",
                  "/v1/projects/p/jobs/j:other",
                  200,
                  "jobs.get",
                  "jobs.get",
                  {{"project", "p"}, {"jobId", "j:other"}}},
        RouteCase{"DomainScopedProject",
                  "GET",
                  "/v1/projects/example.com:p:getConfig",
                  200,
                  "projects.getConfig",
                  "projects.getConfig",
                  {{"project", "example.com:p"}}},
        RouteCase{"DecodesVariables",
                  "GET",
                  "/v1/projects/my%20p/jobs/a%3Ab",
                  200,
                  "jobs.get",
                  "jobs.get",
                  {{"project", "my p"}, {"jobId", "a:b"}}},
        RouteCase{
            "EncodedSlashIs400", "GET", "/v1/projects/p/jobs/..%2Fx", 400, "jobs.get", "", {}},
        RouteCase{"NulIs400", "GET", "/v1/projects/p%00/jobs", 400, "jobs.list", "", {}},
        RouteCase{"DotDotIs400", "GET", "/v1/projects/../jobs", 400, "jobs.list", "", {}},
        RouteCase{"UnknownPathIs404", "GET", "/v2/entries", 404, "unmatched", "", {}},
        RouteCase{"TrailingSlashIs404", "GET", "/v1/projects/p/jobs/", 404, "unmatched", "", {}},
        RouteCase{"EmptyVariableIs404", "GET", "/v1/projects//jobs", 404, "unmatched", "", {}},
        RouteCase{"ExtraSegmentIs404", "GET", "/v1/projects/p/jobs/j/x", 404, "unmatched", "", {}},
        RouteCase{"WrongMethodIs405", "DELETE", "/v1/projects/p/jobs/j", 405, "unmatched", "", {}},
        RouteCase{
            "MethodsAreCaseSensitive", "get", "/v1/projects/p/jobs", 405, "unmatched", "", {}},
        RouteCase{"MalformedTargetIs400", "GET", "v1/projects", 400, "unmatched", "", {}},
        RouteCase{"UnknownQueryParamIs400",
                  "GET",
                  "/v1/projects/p/jobs/j?foo=1",
                  400,
                  "jobs.get",
                  "",
                  {}}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(RouterTest, AnswersWrongMethodWithAllowHeader) {
  const HttpResponse response = Dispatch("DELETE", "/v1/projects/p/jobs/j");
  ASSERT_EQ(response.status, 405);
  ASSERT_EQ(response.headers.size(), 1u);
  EXPECT_EQ(response.headers[0].first, "Allow");
  EXPECT_EQ(response.headers[0].second, "GET, PATCH");
  EXPECT_EQ(nlohmann::json::parse(response.body)["error"]["status"], "UNIMPLEMENTED");
}

TEST_F(RouterTest, PassesDeclaredQueryParamsAndIgnoresStandardOnes) {
  const HttpResponse response =
      Dispatch("GET",
               "/v1/projects/p/jobs?alt=json&prettyPrint=false&fields=jobs&%24.xgafv=2&key=k&"
               "quotaUser=u&pageSize=1&pageSize=7");
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(nlohmann::json::parse(response.body)["query"],
            (nlohmann::json{{"pageSize", "7"}}));  // the last value wins
}

TEST_F(RouterTest, NamesEveryUnknownQueryParam) {
  const HttpResponse response = Dispatch("GET", "/v1/projects/p/jobs?foo=1&pageSize=2&bar=");
  ASSERT_EQ(response.status, 400);
  const auto violations =
      nlohmann::json::parse(response.body)["error"]["details"][0]["fieldViolations"];
  ASSERT_EQ(violations.size(), 2u);
  EXPECT_EQ(violations[0]["field"], "foo");
  EXPECT_EQ(violations[1]["field"], "bar");
}

TEST(UnderRootTest, IsTheRootOrBelowIt) {
  const struct {
    std::string_view target;
    std::string_view root;
    bool under;
  } cases[] = {
      {"/apis", "/apis", true},     {"/apis/x/y", "/apis", true}, {"/apis?watch=1", "/apis", true},
      {"/apisx", "/apis", false},   {"/api", "/apis", false},     {"/v1/apis", "/apis", false},
      {"/x?/apis", "/apis", false},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(UnderRoot(c.target, c.root), c.under) << c.target << " " << c.root;
  }
}

// A router with google.rpc routes and a dialect for the paths under /k and /kv.
class RouterDialectTest : public RouterTest {
 protected:
  RouterDialectTest() {
    router_.Add(Echo("GET", "/k/{namespace}/items", "k.items.list"));
    router_.Add(Echo("PUT", "/k/{namespace}/items/{name}", "k.items.update"));
    router_.AddDialect({.roots = {"/k", "/kv"},
                        .refuse =
                            [](const RouterRefusal& refusal) {
                              nlohmann::json body = {{"kind", "Status"},
                                                     {"code", refusal.http_status},
                                                     {"method", refusal.method},
                                                     {"path", refusal.path},
                                                     {"allowed", refusal.allowed}};
                              return JsonResponse(body.dump(), refusal.http_status);
                            },
                        .any_query = true});
  }
};

struct DialectCase {
  std::string name;
  std::string method;
  std::string target;
  int status;
  bool dialect;          // refused in the dialect's words (else google.rpc's, or the handler ran)
  std::string route;     // the response's metrics label
  nlohmann::json extra;  // the dialect's refusal: its path and allowed methods
};

class RouterDialectTableTest : public RouterDialectTest,
                               public ::testing::WithParamInterface<DialectCase> {};

TEST_P(RouterDialectTableTest, RefusesEachPathInItsApisWords) {
  const DialectCase& tc = GetParam();
  const HttpResponse response = Dispatch(tc.method, tc.target);
  EXPECT_EQ(response.status, tc.status) << response.body;
  EXPECT_EQ(response.route, tc.route);
  const auto body = nlohmann::json::parse(response.body);
  if (tc.dialect) {
    EXPECT_EQ(body["kind"], "Status") << response.body;
    EXPECT_EQ(body["code"], tc.status);
    EXPECT_EQ(body["method"], tc.method);
    for (const auto& [key, value] : tc.extra.items()) {
      EXPECT_EQ(body[key], value) << key;
    }
    EXPECT_TRUE(response.headers.empty()) << "the dialect says whether to send Allow";
  } else if (tc.status >= 400) {
    EXPECT_EQ(body["error"]["code"], tc.status) << response.body;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, RouterDialectTableTest,
    ::testing::Values(
        DialectCase{"UnknownPathUnderRootIsTheDialects404",
                    "GET",
                    "/k/ns/other",
                    404,
                    true,
                    "unmatched",
                    {{"path", "/k/ns/other"}}},
        DialectCase{
            "TheRootItselfIsTheDialects", "GET", "/kv", 404, true, "unmatched", {{"path", "/kv"}}},
        DialectCase{"WrongMethodIsTheDialects405",
                    "POST",
                    "/k/ns/items",
                    405,
                    true,
                    "unmatched",
                    {{"allowed", {"GET"}}}},
        DialectCase{"BadVariableIsTheDialects400",
                    "PUT",
                    "/k/ns/items/a%2Fb",
                    400,
                    true,
                    "k.items.update",
                    {{"path", "/k/ns/items/a%2Fb"}}},
        DialectCase{"MalformedTargetUnderRootIsTheDialects400",
                    "GET",
                    "/k/ns/items?a=%zz",
                    400,
                    true,
                    "unmatched",
                    {}},
        DialectCase{"AnyQueryParamReachesTheHandler",
                    "GET",
                    "/k/ns/items?watch=1&labelSelector=a",
                    200,
                    false,
                    "k.items.list",
                    {}},
        DialectCase{
            "APathBesideTheRootIsGoogles", "GET", "/kx/ns/items", 404, false, "unmatched", {}},
        DialectCase{"OtherPathsStayGoogles405",
                    "DELETE",
                    "/v1/projects/p/jobs/j",
                    405,
                    false,
                    "unmatched",
                    {}},
        DialectCase{"OtherPathsStillRefuseUnknownParams",
                    "GET",
                    "/v1/projects/p/jobs/j?watch=1",
                    400,
                    false,
                    "jobs.get",
                    {}}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(RouterDialectTest, PassesEveryQueryParamUnderItsRoots) {
  const HttpResponse response = Dispatch("GET", "/k/ns/items?watch=1&fieldManager=kubectl");
  ASSERT_EQ(response.status, 200) << response.body;
  EXPECT_EQ(nlohmann::json::parse(response.body)["query"],
            (nlohmann::json{{"watch", "1"}, {"fieldManager", "kubectl"}}));
}

TEST(RouterDeathTest, RefusesMalformedPatterns) {
  Router router;
  EXPECT_DEATH(router.Add(Echo("GET", "v1/x", "x")), "");
  EXPECT_DEATH(router.Add(Echo("GET", "/v1/{x", "x")), "");
  EXPECT_DEATH(router.Add(Echo("GET", "/v1//x", "x")), "");
}

}  // namespace
}  // namespace trainyard::server
