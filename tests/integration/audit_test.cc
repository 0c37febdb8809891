// The activity audit log on the real server (issue #17): a submit, a refused submit, a bucket
// and an upload, a call without a token and one to a server-wide route, then
// entries:list with the audit log's logName returns them in order with Google's AuditLog
// fields, and only to those who may read the project's logs.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "access/principal.h"
#include "integration/live_server.h"

namespace trainyard::testing {
namespace {

using access::Role;
using nlohmann::json;

constexpr std::string_view kAuditLog = "cloudaudit.googleapis.com%2Factivity";

std::string LogName(std::string_view project) {
  return "projects/" + std::string(project) + "/logs/" + std::string(kAuditLog);
}

class AuditTest : public ::testing::Test {
 protected:
  AuditTest() {
    for (const auto& [name, role, projects] :
         std::vector<std::tuple<std::string, Role, std::vector<std::string>>>{
             {"alice", Role::kEditor, {"proj"}},
             {"bob", Role::kViewer, {"other"}},
             {"root", Role::kAdmin, {}},
         }) {
      tokens_[name] = *server_.tokens().Create({.name = name,
                                                .grants = *access::GrantsFor(role, projects),
                                                .create_time = clock_.Now()});
    }
  }

  ClientResponse Send(const std::string& who, const std::string& method, const std::string& target,
                      const std::string& body = "") {
    Headers headers = {{"User-Agent", "audit-test/1.0"}};
    if (!who.empty()) {
      headers.emplace_back("Authorization", "Bearer " + tokens_.at(who));
    }
    return client_.Send(method, target, body, headers);
  }

  // The audit log of `project` as `who` reads it, oldest first.
  ClientResponse Read(const std::string& who, const std::string& project,
                      const std::string& extra_filter = "") {
    json request = {{"resourceNames", {"projects/" + project}},
                    {"filter", "logName=\"" + LogName(project) + "\" " + extra_filter},
                    {"orderBy", "timestamp asc"}};
    return Send(who, "POST", "/v2/entries:list", request.dump());
  }

  json Entries(const std::string& who, const std::string& project,
               const std::string& extra_filter = "") {
    const ClientResponse response = Read(who, project, extra_filter);
    EXPECT_EQ(response.status, 200) << response.body;
    json body = Body(response);
    return body.contains("entries") ? body["entries"] : json::array();
  }

  SystemClock clock_;
  LiveServer server_{{}, /*check_tokens=*/true};
  HttpClient client_{server_.port()};
  std::map<std::string, std::string> tokens_;
};

TEST_F(AuditTest, RecordsChangesAndRefusalsInOrderWithGooglesFields) {
  ASSERT_EQ(Send("alice", "POST", JobsPath(), ValidJob("a1").dump()).status, 200);
  ASSERT_EQ(Send("bob", "POST", JobsPath(), ValidJob("b1").dump()).status, 403);
  ASSERT_EQ(Send("alice", "POST", "/storage/v1/b?project=proj", R"({"name":"bkt"})").status, 200);
  ASSERT_EQ(
      Send("alice", "POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=dir/obj", "x").status,
      200);
  ASSERT_EQ(Send("", "GET", JobsPath()).status, 401);
  // Reads that succeed are not recorded.
  ASSERT_EQ(Send("alice", "GET", JobPath("a1")).status, 200);
  ASSERT_EQ(Send("alice", "GET", "/storage/v1/b/bkt/o/dir%2Fobj").status, 200);

  const json entries = Entries("alice", "proj");
  ASSERT_EQ(entries.size(), 5u) << entries.dump(2);

  struct Expected {
    std::string method;
    std::string resource;
    std::string principal;
    int code;
    std::string permission;  // of authorizationInfo[0]; "" when none
    bool granted;
  };
  const std::vector<Expected> expected = {
      {"google.cloud.ml.v1.JobService.CreateJob", "projects/proj/jobs/a1", "alice", 0,
       "ml.jobs.create", true},
      {"google.cloud.ml.v1.JobService.CreateJob", "projects/proj/jobs/b1", "bob", 7,
       "ml.jobs.create", false},
      {"storage.buckets.create", "projects/_/buckets/bkt", "alice", 0, "storage.buckets.create",
       true},
      {"storage.objects.create", "projects/_/buckets/bkt/objects/dir/obj", "alice", 0,
       "storage.objects.create", true},
      {"google.cloud.ml.v1.JobService.ListJobs", "projects/proj", "", 16, "", false},
  };
  std::string previous_time;
  std::vector<std::string> ids;
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE(expected[i].method + " #" + std::to_string(i));
    const json& entry = entries[i];
    const json& payload = entry["protoPayload"];
    EXPECT_EQ(entry["logName"], LogName("proj"));
    EXPECT_EQ(payload["@type"], "type.googleapis.com/google.cloud.audit.AuditLog");
    EXPECT_EQ(payload["methodName"], expected[i].method);
    EXPECT_EQ(payload["resourceName"], expected[i].resource);
    EXPECT_EQ(payload["serviceName"], expected[i].method.starts_with("storage")
                                          ? "storage.googleapis.com"
                                          : "ml.googleapis.com");
    EXPECT_EQ(payload["authenticationInfo"].value("principalEmail", ""), expected[i].principal);
    EXPECT_EQ(payload["requestMetadata"]["callerIp"], "127.0.0.1");
    EXPECT_EQ(payload["requestMetadata"]["callerSuppliedUserAgent"], "audit-test/1.0");
    EXPECT_EQ(payload["status"].value("code", 0), expected[i].code);
    EXPECT_EQ(entry["severity"], expected[i].code == 0 ? "NOTICE" : "ERROR");
    if (expected[i].code != 0) {
      EXPECT_FALSE(payload["status"].value("message", "").empty());
    }
    if (expected[i].permission.empty()) {
      EXPECT_FALSE(payload.contains("authorizationInfo"));
    } else {
      ASSERT_TRUE(payload.contains("authorizationInfo")) << payload.dump();
      EXPECT_EQ(payload["authorizationInfo"][0]["permission"], expected[i].permission);
      EXPECT_EQ(payload["authorizationInfo"][0]["granted"], expected[i].granted);
    }
    EXPECT_EQ(entry["resource"]["type"], "audited_resource");
    EXPECT_EQ(entry["resource"]["labels"]["project_id"], "proj");
    EXPECT_GE(entry["timestamp"].get<std::string>(), previous_time);
    previous_time = entry["timestamp"];
    ids.push_back(entry["insertId"]);
  }
  std::ranges::sort(ids);
  EXPECT_EQ(std::adjacent_find(ids.begin(), ids.end()), ids.end());  // no id twice
}

TEST_F(AuditTest, FiltersOnTheAuditLogsFields) {
  ASSERT_EQ(Send("alice", "POST", JobsPath(), ValidJob("a1").dump()).status, 200);
  ASSERT_EQ(Send("bob", "POST", JobsPath(), ValidJob("b1").dump()).status, 403);
  ASSERT_EQ(Send("alice", "POST", JobPath("a1") + ":cancel").status, 200);

  EXPECT_EQ(Entries("alice", "proj", "severity>=ERROR").size(), 1u);
  EXPECT_EQ(Entries("alice", "proj",
                    "protoPayload.methodName=\"google.cloud.ml.v1.JobService.CreateJob\"")
                .size(),
            2u);
  const json bobs = Entries("alice", "proj", "protoPayload.authenticationInfo.principalEmail=bob");
  ASSERT_EQ(bobs.size(), 1u);
  EXPECT_EQ(bobs[0]["protoPayload"]["status"]["code"], 7);
  EXPECT_EQ(Entries("alice", "proj", "protoPayload.status.code=7").size(), 1u);
  // Without the logName the audit entries come with the jobs' logs (a filter on jobs' fields
  // leaves them out).
  const json body = {{"resourceNames", {"projects/proj"}},
                     {"filter", "resource.type=\"audited_resource\""}};
  const json all = Body(Send("alice", "POST", "/v2/entries:list", body.dump()));
  EXPECT_EQ(all["entries"].size(), 3u);
}

TEST_F(AuditTest, AResumableUploadIsOneCreateAndADeletedBucketKeepsItsProject) {
  ASSERT_EQ(Send("alice", "POST", "/storage/v1/b?project=proj", R"({"name":"bkt"})").status, 200);
  const ClientResponse started = Send(
      "alice", "POST", "/resumable/upload/storage/v1/b/bkt/o?name=big&uploadType=resumable", "{}");
  ASSERT_EQ(started.status, 200) << started.body;
  const std::string location = started.Header("location");
  const std::string session = location.substr(location.find("/upload/"));
  Headers chunk = {{"Authorization", "Bearer " + tokens_.at("alice")},
                   {"Content-Range", "bytes 0-2/*"}};
  ASSERT_EQ(client_.Send("PUT", session, "abc", chunk).status, 308);
  chunk.back() = {"Content-Range", "bytes 3-5/6"};
  ASSERT_EQ(client_.Send("PUT", session, "def", chunk).status, 200);
  ASSERT_EQ(Send("alice", "DELETE", "/storage/v1/b/bkt/o/big").status, 204);
  ASSERT_EQ(Send("alice", "DELETE", "/storage/v1/b/bkt").status, 204);

  const json entries = Entries("alice", "proj");
  std::vector<std::string> calls;
  for (const json& entry : entries) {
    calls.push_back(entry["protoPayload"]["methodName"].get<std::string>() + " " +
                    entry["protoPayload"]["resourceName"].get<std::string>());
  }
  EXPECT_EQ(calls, (std::vector<std::string>{
                       "storage.buckets.create projects/_/buckets/bkt",
                       "storage.objects.create projects/_/buckets/bkt/objects/big",
                       "storage.objects.delete projects/_/buckets/bkt/objects/big",
                       "storage.buckets.delete projects/_/buckets/bkt",
                   }));
}

TEST_F(AuditTest, OnlyReadersOfTheProjectSeeItsLog) {
  ASSERT_EQ(Send("alice", "POST", JobsPath(), ValidJob("a1").dump()).status, 200);
  ASSERT_EQ(Send("bob", "POST", JobsPath(), ValidJob("b1").dump()).status, 403);

  EXPECT_EQ(Read("bob", "proj").status, 403);
  // bob's refused calls are in proj's log, not in the log of the project he may read.
  EXPECT_TRUE(Entries("bob", "other").empty());
  const json entries = Entries("root", "proj");
  ASSERT_EQ(entries.size(), 3u) << entries.dump(2);
  EXPECT_EQ(entries[2]["protoPayload"]["methodName"],
            "google.logging.v2.LoggingServiceV2.ListLogEntries");
  EXPECT_EQ(entries[2]["protoPayload"]["authenticationInfo"]["principalEmail"], "bob");
  EXPECT_EQ(entries[2]["protoPayload"]["authorizationInfo"][0]["permission"],
            "logging.logEntries.list");
}

TEST_F(AuditTest, RefusalsThatNameNoProjectGoToTheServerWideLog) {
  ASSERT_EQ(Send("alice", "GET", "/metrics").status, 403);
  ASSERT_EQ(Send("alice", "GET", "/apis/kubeflow.org/v1/tfjobs").status, 403);

  EXPECT_EQ(Read("alice", "-").status, 403);
  const json entries = Entries("root", "-");
  ASSERT_EQ(entries.size(), 3u) << entries.dump(2);
  EXPECT_EQ(entries[0]["logName"], LogName("-"));
  EXPECT_EQ(entries[0]["protoPayload"]["methodName"], "trainyard.metrics.get");
  EXPECT_EQ(entries[1]["protoPayload"]["methodName"], "io.k8s.kubeflow.v1.tfjobs.list");
  EXPECT_EQ(entries[1]["protoPayload"]["serviceName"], "k8s.io");
  EXPECT_EQ(entries[1]["protoPayload"]["authorizationInfo"][0]["granted"], false);
  // Reading the server-wide log is refused to alice, and that refusal is in it too.
  EXPECT_EQ(entries[2]["protoPayload"]["methodName"],
            "google.logging.v2.LoggingServiceV2.ListLogEntries");
  EXPECT_EQ(entries[2]["protoPayload"]["resourceName"], "projects/-");
}

TEST_F(AuditTest, RecordsKubernetesChangesWhateverTheirOutcome) {
  ASSERT_EQ(
      Send("alice", "POST", "/apis/kubeflow.org/v1/namespaces/proj/tfjobs", "{}").status / 100, 4);
  ASSERT_EQ(Send("alice", "GET", "/apis/kubeflow.org/v1/namespaces/proj/tfjobs").status, 200);

  const json entries = Entries("alice", "proj");
  ASSERT_EQ(entries.size(), 1u) << entries.dump(2);
  const json& payload = entries[0]["protoPayload"];
  EXPECT_EQ(payload["methodName"], "io.k8s.kubeflow.v1.tfjobs.create");
  EXPECT_EQ(payload["resourceName"], "kubeflow.org/v1/namespaces/proj/tfjobs");
  EXPECT_EQ(payload["authorizationInfo"][0]["permission"], "ml.jobs.create");
  EXPECT_EQ(entries[0]["severity"], "ERROR");
}

TEST(AuditWithoutTokensTest, RecordsTheCallerAsAnonymous) {
  LiveServer server;
  HttpClient client(server.port());
  ASSERT_EQ(client.Post(JobsPath(), ValidJob("a1").dump()).status, 200);
  const json request = {{"resourceNames", {"projects/proj"}},
                        {"filter", "logName=\"" + LogName("proj") + "\""}};
  const json body = Body(client.Post("/v2/entries:list", request.dump()));
  ASSERT_EQ(body["entries"].size(), 1u) << body.dump(2);
  const json& payload = body["entries"][0]["protoPayload"];
  EXPECT_EQ(payload["authenticationInfo"]["principalEmail"], "anonymous");
  EXPECT_FALSE(payload.contains("authorizationInfo"));  // nothing was checked
}

}  // namespace
}  // namespace trainyard::testing
