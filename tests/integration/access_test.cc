// Tokens and roles on the real server (issue #17): every route × caller (no token, a viewer, an
// editor, an editor of another project, an admin, an expired token), the error shapes of each
// API, and what a refusal must not reveal.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "access/principal.h"
#include "base/time_format.h"
#include "integration/live_server.h"

namespace trainyard::testing {
namespace {

using access::Role;

// What a route needs of its caller.
enum class Needs {
  kRead,    // a viewer of "proj"
  kWrite,   // an editor of "proj"
  kServer,  // an admin
  kToken,   // any valid token
};

struct RouteCase {
  std::string method;
  std::string target;
  std::string body;  // "{N}" is replaced by a number unique to each call
  Needs needs;
  bool bucket = false;  // refused as a missing bucket (404) rather than 403
};

const std::vector<RouteCase> kRoutes = {
    {"GET", "/v1/projects/proj/jobs", "", Needs::kRead},
    {"GET", "/v1/projects/proj/jobs/j1", "", Needs::kRead},
    {"POST", "/v1/projects/proj/jobs", "JOB", Needs::kWrite},
    {"PATCH", "/v1/projects/proj/jobs/j1?updateMask=labels", R"({"labels":{"a":"{N}"}})",
     Needs::kWrite},
    {"POST", "/v1/projects/proj/jobs/j1:cancel", "", Needs::kWrite},
    {"GET", "/trainyard/v1/projects/proj/jobs/j1/suspension", "", Needs::kRead},
    {"POST", "/trainyard/v1/projects/proj/jobs/j1:suspend", "", Needs::kWrite},
    {"POST", "/trainyard/v1/projects/proj/jobs/j1:resume", "", Needs::kWrite},
    {"GET", "/v1/projects/proj:getConfig", "", Needs::kRead},
    {"POST", "/v2/entries:list", R"({"resourceNames":["projects/proj"]})", Needs::kRead},
    {"GET", "/storage/v1/b?project=proj", "", Needs::kRead},
    {"POST", "/storage/v1/b?project=proj", R"({"name":"new-{N}"})", Needs::kWrite},
    {"GET", "/storage/v1/b/bkt", "", Needs::kRead, true},
    {"GET", "/storage/v1/b/bkt/storageLayout", "", Needs::kRead, true},
    {"GET", "/storage/v1/b/bkt/o", "", Needs::kRead, true},
    {"GET", "/storage/v1/b/bkt/managedFolders", "", Needs::kRead, true},
    {"GET", "/storage/v1/b/bkt/o/obj", "", Needs::kRead, true},
    {"GET", "/download/storage/v1/b/bkt/o/obj?alt=media", "", Needs::kRead, true},
    {"POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=up-{N}", "data", Needs::kWrite,
     true},
    {"PUT", "/upload/storage/v1/b/bkt/o?upload_id=none", "", Needs::kWrite, true},
    {"DELETE", "/upload/storage/v1/b/bkt/o?upload_id=none", "", Needs::kWrite, true},
    {"DELETE", "/storage/v1/b/bkt/o/missing", "", Needs::kWrite, true},
    {"POST", "/storage/v1/b/bkt/o/obj/rewriteTo/b/bkt/o/copy-{N}", "", Needs::kWrite, true},
    {"PATCH", "/storage/v1/b/bkt", R"({"labels":{"n":"{N}"}})", Needs::kWrite, true},
    {"DELETE", "/storage/v1/b/bkt", "", Needs::kWrite, true},  // not empty: 409 once allowed
    {"GET", "/metrics", "", Needs::kServer},
    {"GET", "/trainyard/v1/caller", "", Needs::kToken},
    {"GET", "/trainyard/v1/sharing", "", Needs::kToken},
    {"GET", "/trainyard/v1/projects/proj/quota", "", Needs::kRead},
    {"PUT", "/trainyard/v1/projects/proj/quota", R"({"cpus":{N}})", Needs::kServer},
    {"DELETE", "/trainyard/v1/projects/other/quota", "", Needs::kServer},  // 404 once allowed
    {"GET", "/trainyard/v1/priorityClasses", "", Needs::kToken},
    {"PUT", "/trainyard/v1/priorityClasses/high", R"({"value":{N}})", Needs::kServer},
    {"DELETE", "/trainyard/v1/priorityClasses/none", "", Needs::kServer},  // 404 once allowed
    {"GET", "/version", "", Needs::kToken},
    {"GET", "/api/v1/namespaces", "", Needs::kToken},
    {"GET", "/apis/kubeflow.org/v1/namespaces/proj/tfjobs", "", Needs::kRead},
    {"GET", "/apis/kubeflow.org/v1/namespaces/proj/tfjobs/x", "", Needs::kRead},
    {"GET", "/apis/kubeflow.org/v1/tfjobs", "", Needs::kServer},
    {"POST", "/apis/kubeflow.org/v1/namespaces/proj/tfjobs", "{}", Needs::kWrite},
    {"PATCH", "/apis/kubeflow.org/v1/namespaces/proj/tfjobs/x", "{}", Needs::kWrite},
    {"DELETE", "/apis/kubeflow.org/v1/namespaces/proj/tfjobs/x", "", Needs::kWrite},
    {"GET", "/api/v1/namespaces/proj/pods", "", Needs::kRead},
    {"GET", "/api/v1/namespaces/proj/pods/x", "", Needs::kRead},
    {"GET", "/api/v1/namespaces/proj/pods/x/log", "", Needs::kRead},
    {"GET", "/api/v1/namespaces/proj/pods/x/status", "", Needs::kRead},
    {"GET", "/api/v1/namespaces/proj/events", "", Needs::kRead},
    // issue #36: deletecollection, and `kubectl auth can-i`'s reviews (about the caller itself)
    {"DELETE", "/apis/kubeflow.org/v1/namespaces/proj/tfjobs?labelSelector=n%3D{N}", "",
     Needs::kWrite},
    {"POST", "/apis/authorization.k8s.io/v1/selfsubjectaccessreviews",
     R"({"spec":{"resourceAttributes":{"verb":"get","resource":"tfjobs","group":"kubeflow.org"}}})",
     Needs::kToken},
    {"POST", "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews",
     R"({"spec":{"namespace":"proj"}})", Needs::kToken},
};

struct Caller {
  std::string name;
  Role role;
  std::vector<std::string> projects;
  bool expired = false;
};

class AccessTest : public ::testing::Test {
 protected:
  AccessTest() {
    for (const Caller& caller : std::vector<Caller>{
             {"viewer", Role::kViewer, {"proj"}},
             {"editor", Role::kEditor, {"proj"}},
             {"outsider", Role::kEditor, {"other"}},
             {"admin", Role::kAdmin, {}},
             {"expired", Role::kEditor, {"proj"}, true},
         }) {
      store::TokenInfo info{.name = caller.name,
                            .grants = *access::GrantsFor(caller.role, caller.projects),
                            .create_time = clock_.Now()};
      if (caller.expired) {
        info.expire_time = clock_.Now() - std::chrono::seconds(1);
      }
      tokens_[caller.name] = *server_.tokens().Create(info);
    }
    // As the admin: a bucket with an object and a job in "proj", the same in "other".
    for (const std::string& project : std::vector<std::string>{"proj", "other"}) {
      const std::string bucket = project == "proj" ? "bkt" : "theirs";
      EXPECT_EQ(Send("admin", "POST", "/storage/v1/b?project=" + project,
                     R"({"name":")" + bucket + R"("})")
                    .status,
                200);
      EXPECT_EQ(Send("admin", "POST",
                     "/upload/storage/v1/b/" + bucket + "/o?uploadType=media&name=obj", "x")
                    .status,
                200);
      EXPECT_EQ(Send("admin", "POST", JobsPath(project), ValidJob("j1").dump()).status, 200);
    }
  }

  ClientResponse Send(const std::string& who, const std::string& method, const std::string& target,
                      const std::string& body = "") {
    Headers headers;
    if (!who.empty()) {
      headers.emplace_back("Authorization", "Bearer " + tokens_.at(who));
    }
    return client_.Send(method, target, body, headers);
  }

  // The case's body for one call.
  std::string BodyOf(const RouteCase& route) {
    ++calls_;
    if (route.body == "JOB") {
      return ValidJob("job_" + std::to_string(calls_)).dump();
    }
    std::string body = route.body;
    if (const std::size_t at = body.find("{N}"); at != std::string::npos) {
      body.replace(at, 3, std::to_string(calls_));
    }
    return body;
  }

  std::string Target(const RouteCase& route) {
    std::string target = route.target;
    if (const std::size_t at = target.find("{N}"); at != std::string::npos) {
      target.replace(at, 3, std::to_string(++calls_));
    }
    return target;
  }

  SystemClock clock_;
  LiveServer server_{{}, /*check_tokens=*/true};
  HttpClient client_{server_.port()};
  std::map<std::string, std::string> tokens_;
  int calls_ = 0;
};

bool Allowed(const std::string& caller, Needs needs) {
  if (caller == "admin") {
    return true;
  }
  switch (needs) {
    case Needs::kRead:
      return caller == "viewer" || caller == "editor";
    case Needs::kWrite:
      return caller == "editor";
    case Needs::kServer:
      return false;
    case Needs::kToken:
      return caller == "viewer" || caller == "editor" || caller == "outsider";
  }
  return false;
}

TEST_F(AccessTest, EveryRouteAnswersEachCallerAsItsRoleAllows) {
  for (const RouteCase& route : kRoutes) {
    for (const std::string& caller :
         std::vector<std::string>{"", "expired", "viewer", "editor", "outsider", "admin"}) {
      const std::string target = Target(route);
      const ClientResponse response = Send(caller, route.method, target, BodyOf(route));
      const std::string what = route.method + " " + target + " as [" + caller +
                               "]: " + std::to_string(response.status) + " " + response.body;
      if (caller.empty() || caller == "expired") {
        EXPECT_EQ(response.status, 401) << what;
        EXPECT_NE(response.Header("www-authenticate").find("Bearer"), std::string::npos) << what;
        continue;
      }
      const bool bucket_missing =
          response.status == 404 &&
          response.body.find("The specified bucket does not exist.") != std::string::npos;
      if (Allowed(caller, route.needs)) {
        EXPECT_NE(response.status, 401) << what;
        EXPECT_NE(response.status, 403) << what;
        EXPECT_FALSE(bucket_missing) << what;
      } else if (route.bucket && caller == "outsider") {
        EXPECT_TRUE(bucket_missing) << what;
      } else {
        EXPECT_EQ(response.status, 403) << what;
      }
    }
  }
}

TEST_F(AccessTest, HealthzNeedsNoToken) {
  EXPECT_EQ(client_.Get("/healthz").status, 200);
}

// The console's files hold no data (its calls carry the token), so a browser can load the
// sign-in page before it has one.
TEST_F(AccessTest, TheConsoleFilesNeedNoToken) {
  EXPECT_EQ(client_.Get("/console/").status, 200);
  EXPECT_EQ(client_.Get("/console/index.html").status, 200);
  EXPECT_EQ(client_.Get("/console/missing.js").status, 404);
}

// What the console offers a caller: its own projects, or any for a role that spans them.
TEST_F(AccessTest, TheCallerRouteSaysWhoCallsAndTheirProjects) {
  const nlohmann::json viewer = Body(Send("viewer", "GET", "/trainyard/v1/caller"));
  EXPECT_EQ(viewer["name"], "viewer");
  ASSERT_EQ(viewer["grants"].size(), 1U) << viewer.dump();
  EXPECT_EQ(viewer["grants"][0]["role"], "viewer");
  EXPECT_EQ(viewer["grants"][0]["project"], "proj");
  // The role's permissions, so the console offers only what the caller may do.
  const auto holds = [](const nlohmann::json& caller, std::string_view permission) {
    const nlohmann::json& held = caller["grants"][0]["permissions"];
    return std::find(held.begin(), held.end(), permission) != held.end();
  };
  EXPECT_TRUE(holds(viewer, "ml.jobs.get")) << viewer.dump();
  EXPECT_FALSE(holds(viewer, "ml.jobs.suspend")) << viewer.dump();
  const nlohmann::json editor = Body(Send("editor", "GET", "/trainyard/v1/caller"));
  EXPECT_TRUE(holds(editor, "ml.jobs.suspend")) << editor.dump();
  EXPECT_EQ(viewer["allProjects"], false);
  EXPECT_EQ(viewer["projects"], nlohmann::json::parse(R"(["proj"])"));
  const nlohmann::json admin = Body(Send("admin", "GET", "/trainyard/v1/caller"));
  EXPECT_EQ(admin["allProjects"], true) << admin.dump();
  // Those holding jobs or buckets, and "default".
  EXPECT_EQ(admin["projects"], nlohmann::json::parse(R"(["default","other","proj"])"));
}

TEST_F(AccessTest, TheMissingTokenIsSaidInEachApisShape) {
  const nlohmann::json google = Body(Send("", "GET", JobsPath()));
  EXPECT_EQ(google["error"]["code"], 401);
  EXPECT_EQ(google["error"]["status"], "UNAUTHENTICATED");
  EXPECT_NE(google["error"]["message"].get<std::string>().find("auth/access_token_file"),
            std::string::npos);

  const nlohmann::json gcs = Body(Send("", "GET", "/storage/v1/b/bkt/o"));
  EXPECT_EQ(gcs["error"]["code"], 401);
  EXPECT_EQ(gcs["error"]["errors"][0]["reason"], "required");

  const nlohmann::json kube = Body(Send("", "GET", "/apis/kubeflow.org/v1/namespaces/proj/tfjobs"));
  EXPECT_EQ(kube["kind"], "Status");
  EXPECT_EQ(kube["code"], 401);
  EXPECT_EQ(kube["reason"], "Unauthorized");
}

TEST_F(AccessTest, ABadHeaderOrUnknownTokenIsUnauthenticated) {
  for (const std::string& header : std::vector<std::string>{
           "Basic dXNlcjpwYXNz", "Bearer", "Bearer nope", "Bearer ty_" + std::string(43, 'A')}) {
    const ClientResponse response =
        client_.Send("GET", JobsPath(), "", {{"Authorization", header}});
    EXPECT_EQ(response.status, 401) << header;
    EXPECT_EQ(Body(response)["error"]["status"], "UNAUTHENTICATED") << header;
  }
  const nlohmann::json expired = Body(Send("expired", "GET", JobsPath()));
  EXPECT_NE(expired["error"]["message"].get<std::string>().find("the token expired expired at"),
            std::string::npos)
      << expired;
}

TEST_F(AccessTest, ADeniedJobSaysNothingOfWhetherItExists) {
  const ClientResponse existing = Send("editor", "GET", JobPath("j1", "other"));
  const ClientResponse missing = Send("editor", "GET", JobPath("j9", "other"));
  ASSERT_EQ(existing.status, 403);
  ASSERT_EQ(missing.status, 403);
  EXPECT_EQ(Body(existing)["error"]["message"],
            "Permission 'ml.jobs.get' denied on resource 'projects/other/jobs/j1' (or it may not "
            "exist).");
  EXPECT_EQ(Body(existing)["error"]["status"], "PERMISSION_DENIED");
  std::string expected = existing.body;
  expected.replace(expected.find("jobs/j1"), 7, "jobs/j9");
  EXPECT_EQ(missing.body, expected);
}

TEST_F(AccessTest, AnotherProjectsBucketLooksLikeAMissingOne) {
  const ClientResponse theirs = Send("editor", "GET", "/storage/v1/b/theirs/o/obj");
  const ClientResponse none = Send("editor", "GET", "/storage/v1/b/nobucket/o/obj");
  EXPECT_EQ(theirs.status, 404);
  EXPECT_EQ(theirs.body, none.body);
  EXPECT_EQ(Send("outsider", "GET", "/storage/v1/b/theirs/o/obj").status, 200);
  // Listing another project's buckets names the project, so it is plainly refused.
  const ClientResponse list = Send("editor", "GET", "/storage/v1/b?project=other");
  EXPECT_EQ(list.status, 403);
  EXPECT_EQ(Body(list)["error"]["errors"][0]["reason"], "forbidden");
}

TEST_F(AccessTest, ALogReadNamingAnyForeignProjectIsRefused) {
  const ClientResponse both = Send("viewer", "POST", "/v2/entries:list",
                                   R"({"resourceNames":["projects/proj","projects/other"]})");
  EXPECT_EQ(both.status, 403);
  EXPECT_NE(Body(both)["error"]["message"].get<std::string>().find("projects/other"),
            std::string::npos);
  const ClientResponse by_filter = Send("viewer", "POST", "/v2/entries:list",
                                        R"({"filter":"resource.labels.project_id=\"other\""})");
  EXPECT_EQ(by_filter.status, 403);
}

TEST_F(AccessTest, KubernetesRefusalsAreWordedAsRbacWordsThem) {
  const nlohmann::json denied =
      Body(Send("viewer", "DELETE", "/apis/kubeflow.org/v1/namespaces/proj/tfjobs/x"));
  EXPECT_EQ(denied["kind"], "Status");
  EXPECT_EQ(denied["code"], 403);
  EXPECT_EQ(denied["reason"], "Forbidden");
  EXPECT_EQ(denied["message"],
            "tfjobs.kubeflow.org \"x\" is forbidden: User \"viewer\" cannot delete resource "
            "\"tfjobs\" in API group \"kubeflow.org\" in the namespace \"proj\"");
  const nlohmann::json all = Body(Send("editor", "GET", "/api/v1/pods"));
  EXPECT_EQ(all["message"],
            "pods is forbidden: User \"editor\" cannot list resource \"pods\" in API group \"\" "
            "at the cluster scope");
}

TEST_F(AccessTest, ARevokedTokenStopsWorkingAtOnce) {
  ASSERT_EQ(Send("editor", "GET", JobsPath()).status, 200);
  ASSERT_TRUE(server_.tokens().Revoke("editor").ok());
  EXPECT_EQ(Send("editor", "GET", JobsPath()).status, 401);
}

}  // namespace
}  // namespace trainyard::testing
