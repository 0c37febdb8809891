// Issue #34's quotas on the real server: an admin sets them over trainyard v1, a viewer reads but
// cannot change them, bad input changes nothing, changes are audited, and a job that can never
// fit its project's quota is refused at create in each API's shape (ml v1, Vertex, Kubernetes)
// with nothing stored.
#include <map>
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

constexpr char kQuota[] = "/trainyard/v1/projects/proj/quota";
constexpr char kVertexJobs[] = "/v1/projects/proj/locations/us-central1/customJobs";

class SharingApiTest : public ::testing::Test {
 protected:
  SharingApiTest() {
    for (const auto& [name, role, projects] :
         std::vector<std::tuple<std::string, Role, std::vector<std::string>>>{
             {"viewer", Role::kViewer, {"proj"}},
             {"editor", Role::kEditor, {"proj"}},
             {"outsider", Role::kViewer, {"other"}},
             {"admin", Role::kAdmin, {}},
         }) {
      tokens_[name] = *server_.tokens().Create({.name = name,
                                                .grants = *access::GrantsFor(role, projects),
                                                .create_time = clock_.Now()});
    }
  }

  ClientResponse Send(const std::string& who, const std::string& method, const std::string& target,
                      const std::string& body = "") {
    return client_.Send(method, target, body, {{"Authorization", "Bearer " + tokens_.at(who)}});
  }

  SystemClock clock_;
  LiveServer server_{{}, /*check_tokens=*/true};
  HttpClient client_{server_.port()};
  std::map<std::string, std::string> tokens_;
};

TEST_F(SharingApiTest, AnAdminSetsAViewerReadsAndBadInputChangesNothing) {
  const json quota = {{"project", "proj"}, {"accelerators", {{"NVIDIA_TESLA_T4", 4}}},
                      {"cpus", 64},        {"memory", "256Gi"},
                      {"jobs", 20},        {"weight", 2}};
  ClientResponse set = Send("admin", "PUT", kQuota, quota.dump());
  ASSERT_EQ(set.status, 200) << set.body;
  EXPECT_EQ(Body(set), quota);
  EXPECT_EQ(Body(Send("viewer", "GET", kQuota)), quota);
  EXPECT_EQ(Body(Send("viewer", "GET", "/trainyard/v1/sharing")),
            (json{{"projects", {quota}}, {"priorityClasses", json::object()}}));
  // The whole policy is readable with a role in any project, proj's quota by a viewer of another
  // (README "Sharing the GPUs": decided as Slurm's default, not Kueue's); its own quota route not.
  EXPECT_EQ(Body(Send("outsider", "GET", "/trainyard/v1/sharing")),
            (json{{"projects", {quota}}, {"priorityClasses", json::object()}}));
  EXPECT_EQ(Send("outsider", "GET", kQuota).status, 403);

  const ClientResponse refused = Send("viewer", "PUT", kQuota, R"({"cpus":1})");
  EXPECT_EQ(refused.status, 403) << refused.body;
  EXPECT_EQ(Send("editor", "DELETE", kQuota).status, 403);
  EXPECT_EQ(Send("editor", "PUT", "/trainyard/v1/priorityClasses/high", R"({"value":1})").status,
            403);

  const ClientResponse bad = Send(
      "admin", "PUT", kQuota,
      R"({"accelerators":{"NVIDIA_TESLA_T5":1},"cpus":-1,"memory":"1GB","weight":0,"gpus":2})");
  ASSERT_EQ(bad.status, 400) << bad.body;
  const json error = Body(bad)["error"];
  EXPECT_EQ(error["status"], "INVALID_ARGUMENT");
  std::vector<std::string> fields;
  for (const json& violation : error["details"][0]["fieldViolations"]) {
    fields.push_back(violation["field"]);
  }
  EXPECT_EQ(fields, (std::vector<std::string>{"accelerators.NVIDIA_TESLA_T5", "cpus", "gpus",
                                              "memory", "weight"}));
  EXPECT_EQ(Body(Send("viewer", "GET", kQuota)), quota);

  ASSERT_EQ(Send("admin", "PUT", "/trainyard/v1/priorityClasses/high", R"({"value":900})").status,
            200);
  EXPECT_EQ(Send("admin", "PUT", "/trainyard/v1/priorityClasses/high", R"({"value":9000})").status,
            400);
  EXPECT_EQ(Body(Send("viewer", "GET", "/trainyard/v1/priorityClasses")),
            (json{{"priorityClasses", {{"high", 900}}}}));
  EXPECT_EQ(Send("admin", "DELETE", "/trainyard/v1/priorityClasses/high").status, 200);
  EXPECT_EQ(Send("admin", "DELETE", "/trainyard/v1/priorityClasses/high").status, 404);
  EXPECT_EQ(Send("admin", "DELETE", kQuota).status, 200);
  EXPECT_EQ(Send("admin", "DELETE", kQuota).status, 404);
  EXPECT_EQ(Body(Send("viewer", "GET", kQuota)),
            (json{{"project", "proj"}, {"accelerators", json::object()}, {"weight", 1}}));
}

TEST_F(SharingApiTest, ChangesAndRefusedChangesAreAudited) {
  ASSERT_EQ(Send("admin", "PUT", kQuota, R"({"cpus":8})").status, 200);
  ASSERT_EQ(Send("viewer", "PUT", kQuota, R"({"cpus":9})").status, 403);
  ASSERT_EQ(Send("admin", "PUT", "/trainyard/v1/priorityClasses/high", R"({"value":1})").status,
            200);
  const json project = Body(
      Send("admin", "POST", "/v2/entries:list",
           json{{"resourceNames", {"projects/proj"}},
                {"filter", "protoPayload.methodName=\"trainyard.v1.SharingService.UpdateQuota\""}}
               .dump()));
  ASSERT_EQ(project["entries"].size(), 2U) << project.dump();
  EXPECT_EQ(project["entries"][0]["protoPayload"]["resourceName"], "projects/proj");
  EXPECT_EQ(project["entries"][0]["protoPayload"]["authenticationInfo"]["principalEmail"], "admin");
  EXPECT_EQ(project["entries"][1]["protoPayload"]["status"]["code"], 7);
}

TEST_F(SharingApiTest, AJobThatCanNeverFitItsQuotaIsRefusedInEachApisShape) {
  ASSERT_EQ(Send("admin", "PUT", kQuota, R"({"cpus":2})").status, 200);

  // ml v1 (BASIC: one n1-standard-4, 4 vCPUs): 429 RESOURCE_EXHAUSTED with a QuotaFailure.
  const ClientResponse ml = Send("editor", "POST", JobsPath(), ValidJob("big").dump());
  ASSERT_EQ(ml.status, 429) << ml.body;
  const json error = Body(ml)["error"];
  EXPECT_EQ(error["status"], "RESOURCE_EXHAUSTED");
  EXPECT_NE(error["message"].get<std::string>().find(
                "The following quota metrics exceed quota limits: "
                "aiplatform.googleapis.com/custom_model_training_cpus"),
            std::string::npos)
      << ml.body;
  EXPECT_NE(error["message"].get<std::string>().find("needs 4 vCPUs at once"), std::string::npos);
  EXPECT_EQ(error["details"][0]["@type"], "type.googleapis.com/google.rpc.QuotaFailure");
  EXPECT_EQ(error["details"][0]["violations"][0]["subject"], "project:proj");
  EXPECT_EQ(Send("editor", "GET", JobPath("big")).status, 404);

  // Vertex AI: the same google.rpc shape.
  const json custom_job = json::parse(R"({"displayName": "big", "jobSpec": {"workerPoolSpecs": [
      {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1",
       "containerSpec": {"imageUri": "localhost/img:1"}}]}})");
  const ClientResponse vertex = Send("editor", "POST", kVertexJobs, custom_job.dump());
  ASSERT_EQ(vertex.status, 429) << vertex.body;
  EXPECT_EQ(Body(vertex)["error"]["status"], "RESOURCE_EXHAUSTED");
  EXPECT_EQ(Body(Send("editor", "GET", kVertexJobs)).value("customJobs", json::array()).size(), 0U);

  // Kubernetes (one worker, an n1-standard-4): admission's 403 Forbidden for a ResourceQuota
  // excess.
  const json tfjob = {{"apiVersion", "kubeflow.org/v1"},
                      {"kind", "TFJob"},
                      {"metadata", {{"name", "big"}}},
                      {"spec",
                       {{"tfReplicaSpecs",
                         {{"Worker",
                           {{"replicas", 1},
                            {"template",
                             {{"spec",
                               {{"containers",
                                 {{{"name", "tensorflow"},
                                   {"image", "localhost/img:1"},
                                   {"resources", {{"limits", {{"cpu", "4"}}}}}}}}}}}}}}}}}}};
  const ClientResponse kube = Send("editor", "POST", TFJobsPath(), tfjob.dump());
  ASSERT_EQ(kube.status, 403) << kube.body;
  const json status = Body(kube);
  EXPECT_EQ(status["kind"], "Status");
  EXPECT_EQ(status["reason"], "Forbidden");
  EXPECT_EQ(status["message"].get<std::string>().find(
                "tfjobs.kubeflow.org \"big\" is forbidden: exceeded quota: proj, requested: "
                "requests.cpu=4, limited: requests.cpu=2"),
            0U)
      << kube.body;
  EXPECT_EQ(Send("editor", "GET", TFJobsPath() + std::string("/big")).status, 404);

  // Within the quota, each is accepted.
  ASSERT_EQ(Send("admin", "PUT", kQuota, R"({"cpus":64})").status, 200);
  EXPECT_EQ(Send("editor", "POST", JobsPath(), ValidJob("big").dump()).status, 200);
  EXPECT_EQ(Send("editor", "POST", kVertexJobs, custom_job.dump()).status, 200);
  EXPECT_EQ(Send("editor", "POST", TFJobsPath(), tfjob.dump()).status, 201);
}

}  // namespace
}  // namespace trainyard::testing
