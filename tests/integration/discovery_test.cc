// The discovery documents (server/discovery.h) on the real server, and the ml v1 and aiplatform v1
// documents checked against the router itself: every method a document lists is a route
// trainyard serves, with the query parameters it names, and every route of that API is listed.
#include "server/discovery.h"

#include <functional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/clock.h"
#include "catalog/catalog.h"
#include "control/job_controller.h"
#include "fakes/temp_dir.h"
#include "integration/http_client.h"
#include "integration/live_server.h"
#include "server/ml_v1_handlers.h"
#include "server/router.h"
#include "server/vertex_api.h"
#include "store/sqlite_job_store.h"

namespace trainyard::testing {
namespace {

using nlohmann::json;

TEST(DiscoveryTest, ServesTheDocumentWithTheRequestsHostAndNeedsNoToken) {
  LiveServer server({}, /*check_tokens=*/true);
  HttpClient client(server.port());
  struct Case {
    std::string target;
    std::string host;
  };
  for (const Case& c : std::vector<Case>{{"/discovery/v1/apis/ml/v1/rest", "ml.example:8443"},
                                         {"/$discovery/rest?version=v1", "10.1.2.3:80"}}) {
    SCOPED_TRACE(c.target);
    const ClientResponse response = client.Send("GET", c.target, "", {{"Host", c.host}});
    ASSERT_EQ(response.status, 200) << response.body;
    const json document = Body(response);
    EXPECT_EQ(document["id"], "ml:v1");
    EXPECT_EQ(document["rootUrl"], "http://" + c.host + "/");
    EXPECT_EQ(document["baseUrl"], "http://" + c.host + "/");
    EXPECT_EQ(document["resources"]["projects"]["resources"]["jobs"]["methods"]["create"]["path"],
              "v1/{+parent}/jobs");
  }
}

TEST(DiscoveryTest, UnknownApisAndBadHostsAreRefusedInGooglesShape) {
  LiveServer server;
  HttpClient client(server.port());
  struct Case {
    std::string target;
    std::string host;
    int status;
    std::string code;
  };
  for (const Case& c : std::vector<Case>{
           {"/discovery/v1/apis/ml/v2/rest", "", 404, "NOT_FOUND"},
           {"/discovery/v1/apis/nope/v1/rest", "", 404, "NOT_FOUND"},
           {"/$discovery/rest?version=v9", "", 404, "NOT_FOUND"},
           {"/$discovery/rest", "", 400, "INVALID_ARGUMENT"},
           {"/discovery/v1/apis/ml/v1/rest", "evil\"host/", 400, "INVALID_ARGUMENT"},
       }) {
    SCOPED_TRACE(c.target + " " + c.host);
    Headers headers;
    if (!c.host.empty()) {
      headers.emplace_back("Host", c.host);
    }
    const ClientResponse response = client.Send("GET", c.target, "", headers);
    EXPECT_EQ(response.status, c.status) << response.body;
    EXPECT_EQ(Body(response)["error"]["status"], c.code);
  }
}

// Calls `visit(method)` for every method of `resources`, nested resources included.
template <typename Visit>
void EachMethod(const json& resources, const Visit& visit) {
  for (const json& resource : resources) {
    if (resource.contains("methods")) {
      for (const json& method : resource["methods"]) {
        visit(method);
      }
    }
    if (resource.contains("resources")) {
      EachMethod(resource["resources"], visit);
    }
  }
}

// `path` ("v1/{+name}:cancel") with each path parameter replaced by a value its pattern
// ("^projects/[^/]+/jobs/[^/]+$") accepts.
std::string Expand(const json& method) {
  std::string path = "/" + method["path"].get<std::string>();
  for (const auto& [name, parameter] : method["parameters"].items()) {
    if (parameter["location"] != "path") {
      continue;
    }
    std::string value = parameter["pattern"].get<std::string>();
    value = value.substr(1, value.size() - 2);  // ^…$
    for (std::size_t at = value.find("[^/]+"); at != std::string::npos; at = value.find("[^/]+")) {
      value.replace(at, 5, "x");
    }
    for (const std::string& token : {"{+" + name + "}", "{" + name + "}"}) {
      if (const std::size_t at = path.find(token); at != std::string::npos) {
        path.replace(at, token.size(), value);
      }
    }
  }
  return path;
}

// The last two dot-separated parts: "jobs.create" of "ml.projects.jobs.create" and of the route
// "jobs.create", "customJobs.get" of "aiplatform.projects.locations.customJobs.get" and of the
// route "aiplatform.customJobs.get".
std::string MethodOf(std::string_view id) {
  const std::size_t last = id.rfind('.');
  const std::size_t before = last == std::string_view::npos ? last : id.rfind('.', last - 1);
  return std::string(before == std::string_view::npos ? id : id.substr(before + 1));
}

struct ApiCase {
  std::string api;
  std::function<void(server::Router&, control::JobController&)> add_routes;
};

TEST(DiscoveryTest, EveryMethodIsARouteWithItsParametersAndEveryRouteIsListed) {
  TempDir dir;
  SystemClock clock;
  auto store = store::OpenSqliteJobStore(dir.File("trainyard.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  control::JobController controller(**store, catalog::Catalog::Builtin(), clock);
  for (const ApiCase& api : std::vector<ApiCase>{
           {"ml", [](server::Router&r, control::JobController&c) { AddMlV1Routes(r, c); }},
           {"aiplatform",
            [](server::Router&r, control::JobController&c) {
              AddVertexRoutes(r, c, catalog::Catalog::Builtin(), {});
            }},
       }) {
    SCOPED_TRACE(api.api);
    server::Router router;
    api.add_routes(router, controller);
    auto document = server::DiscoveryDocument(api.api, "v1", "http://h/");
    ASSERT_TRUE(document.ok()) << document.status().ToString();
    std::set<std::string> routed;
    int methods = 0;
    EachMethod(json::parse(*document)["resources"], [&](const json& method) {
      ++methods;
      std::string target = Expand(method);
      char separator = '?';
      for (const auto& [name, parameter] : method["parameters"].items()) {
        if (parameter["location"] == "query") {
          target += separator + name + "=1";
          separator = '&';
        }
      }
      SCOPED_TRACE(method["id"].get<std::string>() + " " + target);
      server::HttpRequest request{.method = method["httpMethod"], .target = target};
      std::string route;
      // The check runs only once a route matched and took every query parameter; refusing
      // keeps the handler from running.
      const server::HttpResponse response =
          router.Dispatch(request, [&](const server::RoutedRequest& r) {
            route = std::string(r.route);
            return std::optional<server::HttpResponse>(server::HttpResponse{.status = 299});
          });
      EXPECT_EQ(response.status, 299) << response.body;
      EXPECT_EQ(MethodOf(method["id"].get<std::string>()), MethodOf(route));
      routed.insert(route);
    });
    EXPECT_GT(methods, 0);
    const std::vector<std::string> names = router.RouteNames();
    EXPECT_EQ(routed, std::set<std::string>(names.begin(), names.end()));
  }
}

}  // namespace
}  // namespace trainyard::testing
