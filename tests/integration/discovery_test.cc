// The discovery documents (api/discovery.h) on the real server, and each document checked
// against the router itself: every method a document lists is a route trainyard serves, with the
// query parameters it names (a media upload's at its upload paths), and every route of that API
// is listed but those a document has no method for (named, with the reason, below).
#include "api/discovery.h"

#include <functional>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/logging/handlers.h"
#include "api/ml/handlers.h"
#include "api/storage/handlers.h"
#include "api/trainyard/caller.h"
#include "api/trainyard/cluster.h"
#include "api/trainyard/handlers.h"
#include "api/trainyard/sharing.h"
#include "api/trainyard/suspend.h"
#include "api/vertex/api.h"
#include "base/clock.h"
#include "catalog/catalog.h"
#include "control/job_controller.h"
#include "control/sharing_admin.h"
#include "fakes/temp_dir.h"
#include "integration/http_client.h"
#include "integration/live_server.h"
#include "server/router.h"
#include "store/bucket_store.h"
#include "store/sharing_store.h"
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

TEST(DiscoveryTest, StorageAndLoggingPointAtThisServerWithTheirServicePaths) {
  LiveServer server;
  HttpClient client(server.port());
  const Headers host = {{"Host", "gcs.example:9000"}};
  const ClientResponse storage = client.Send("GET", "/discovery/v1/apis/storage/v1/rest", "", host);
  ASSERT_EQ(storage.status, 200) << storage.body;
  const json gcs = Body(storage);
  EXPECT_EQ(gcs["id"], "storage:v1");
  EXPECT_EQ(gcs["rootUrl"], "http://gcs.example:9000/");
  EXPECT_EQ(gcs["baseUrl"], "http://gcs.example:9000/storage/v1/");
  const json& insert = gcs["resources"]["objects"]["methods"]["insert"];
  EXPECT_EQ(insert["mediaUpload"]["protocols"]["simple"]["path"],
            "/upload/storage/v1/b/{bucket}/o");
  EXPECT_EQ(insert["mediaUpload"]["protocols"]["resumable"]["path"],
            "/resumable/upload/storage/v1/b/{bucket}/o");
  const ClientResponse logging = client.Send("GET", "/discovery/v1/apis/logging/v2/rest", "", host);
  ASSERT_EQ(logging.status, 200) << logging.body;
  const json logs = Body(logging);
  EXPECT_EQ(logs["id"], "logging:v2");
  EXPECT_EQ(logs["baseUrl"], "http://gcs.example:9000/");
  EXPECT_EQ(logs["resources"]["entries"]["methods"]["list"]["path"], "v2/entries:list");
}

TEST(DiscoveryTest, TrainyardsOwnApiPointsAtThisServerUnderItsServicePath) {
  LiveServer server;
  HttpClient client(server.port());
  const ClientResponse response =
      client.Send("GET", "/discovery/v1/apis/trainyard/v1/rest", "", {{"Host", "ty.example:8080"}});
  ASSERT_EQ(response.status, 200) << response.body;
  const json document = Body(response);
  EXPECT_EQ(document["id"], "trainyard:v1");
  EXPECT_EQ(document["baseUrl"], "http://ty.example:8080/trainyard/v1/");
  const json& jobs = document["resources"]["projects"]["resources"]["jobs"]["methods"];
  EXPECT_EQ(jobs["suspend"]["path"], "projects/{project}/jobs/{jobId}:suspend");
  EXPECT_EQ(jobs["suspend"]["response"]["$ref"], "Suspension");
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

// `path` ("v1/{+name}:cancel", below the document's servicePath `service`; or an upload path, from
// the host's root) with each path parameter replaced by a value its pattern
// ("^projects/[^/]+/jobs/[^/]+$") accepts, "x" when it has none.
std::string Expand(const json& method, std::string path) {
  for (const auto& [name, parameter] : method["parameters"].items()) {
    if (parameter["location"] != "path") {
      continue;
    }
    std::string value = "x";
    if (parameter.contains("pattern")) {
      value = parameter["pattern"].get<std::string>();
      value = value.substr(1, value.size() - 2);  // ^…$
      for (std::size_t at = value.find("[^/]+"); at != std::string::npos;
           at = value.find("[^/]+")) {
        value.replace(at, 5, "x");
      }
    }
    for (const std::string& token : {"{+" + name + "}", "{" + name + "}"}) {
      if (const std::size_t at = path.find(token); at != std::string::npos) {
        path.replace(at, token.size(), value);
      }
    }
  }
  return path;
}

// Where a client sends `method` of a document whose servicePath is `service`: its path, and for
// a media upload, each upload protocol's path instead (the plain path takes no bytes).
std::vector<std::string> Targets(const json& method, const std::string& service) {
  if (method.contains("mediaUpload")) {
    std::vector<std::string> targets;
    for (const auto& [protocol, info] : method["mediaUpload"]["protocols"].items()) {
      targets.push_back(Expand(method, info["path"].get<std::string>()));
    }
    return targets;
  }
  return {Expand(method, "/" + service + method["path"].get<std::string>())};
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
  std::string version;
  std::function<void(server::Router&)> add_routes;
  std::set<std::string> unlisted;  // routes of the API that no method of the document names
};

TEST(DiscoveryTest, EveryMethodIsARouteWithItsParametersAndEveryRouteIsListed) {
  TempDir dir;
  SystemClock clock;
  auto store = store::OpenSqliteJobStore(dir.File("trainyard.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  auto buckets = store::OpenFileBucketStore(dir.File("buckets"), dir.File("storage.db"), clock);
  ASSERT_TRUE(buckets.ok()) << buckets.status().ToString();
  control::JobController controller(**store, catalog::Catalog::Builtin(), clock);
  auto sharing_store = store::OpenSharingStore(store::SharingStorePath(dir.path().string()));
  ASSERT_TRUE(sharing_store.ok()) << sharing_store.status().ToString();
  control::SharingAdmin sharing(**sharing_store, catalog::Catalog::Builtin());
  for (const ApiCase& api : std::vector<ApiCase>{
           {"ml", "v1", [&](server::Router& r) { AddMlV1Routes(r, controller); }},
           {"aiplatform", "v1",
            [&](server::Router& r) {
              AddVertexRoutes(r, controller, catalog::Catalog::Builtin(), {});
            }},
           {"storage",
            "v1",
            [&](server::Router& r) { AddStorageV1Routes(r, **buckets); },
            // The resumable upload's later requests (PUT and DELETE of the session URL the
            // insert answers with), and the two calls `gcloud storage rm -r` makes that are newer
            // than the document (api/storage/handlers.h).
            {"storage.objects.upload", "storage.objects.cancelUpload",
             "storage.buckets.getStorageLayout", "storage.managedFolders.list"}},
           {"logging", "v2",
            [&](server::Router& r) { AddLoggingV2Routes(r, dir.path().string()); }},
           {"trainyard", "v1",
            [&](server::Router& r) {
              // The lookups never run: the check below answers before any handler.
              AddTrainyardV1Routes(r, controller,
                                   [](std::string_view, std::string_view) { return std::nullopt; });
              AddTrainyardV1SuspendRoutes(r, controller);
              AddTrainyardV1SharingRoutes(r, sharing);
              AddTrainyardV1ClusterRoute(r, [] { return std::optional<control::ClusterView>(); });
              AddTrainyardV1CallerRoute(
                  r, [](const server::HttpRequest&) { return std::optional<access::Principal>(); },
                  [] { return Result<std::vector<std::string>>(std::vector<std::string>{}); });
            }},
       }) {
    SCOPED_TRACE(api.api);
    server::Router router;
    api.add_routes(router);
    auto document = server::DiscoveryDocument(api.api, api.version, "http://h/");
    ASSERT_TRUE(document.ok()) << document.status().ToString();
    const json parsed = json::parse(*document);
    EXPECT_EQ(parsed["baseUrl"], "http://h/" + parsed["servicePath"].get<std::string>());
    std::set<std::string> routed;
    int methods = 0;
    EachMethod(parsed["resources"], [&](const json& method) {
      ++methods;
      for (std::string target : Targets(method, parsed["servicePath"])) {
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
      }
    });
    EXPECT_GT(methods, 0);
    const std::vector<std::string> names = router.RouteNames();
    std::set<std::string> listed(names.begin(), names.end());
    for (const std::string& name : api.unlisted) {
      EXPECT_EQ(listed.erase(name), 1U) << name << " is no longer a route";
    }
    EXPECT_EQ(routed, listed);
  }
}

}  // namespace
}  // namespace trainyard::testing
