// A TFJob's schedulingPolicy and suspension through the real server's Kubernetes API and
// trainyard v1 (issue #34): a priorityClass is admitted only when the admin's table has it (read
// on each request), queue and minAvailable are honoured without a warning or refused with their
// cause, and `jobs/{j}:suspend` shows as the operator's Suspended conditions.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/live_server.h"

namespace trainyard::testing {
namespace {

using ::testing::HasSubstr;

std::string TFJob(std::string_view name, const nlohmann::json& scheduling_policy) {
  nlohmann::json job = nlohmann::json::parse(R"({
    "apiVersion": "kubeflow.org/v1", "kind": "TFJob", "metadata": {},
    "spec": {"tfReplicaSpecs": {"Worker": {"replicas": 2, "template": {"spec": {
      "containers": [{"name": "tensorflow", "image": "trainer:1"}]}}}}}})");
  job["metadata"]["name"] = name;
  if (!scheduling_policy.is_null()) {
    job["spec"]["runPolicy"]["schedulingPolicy"] = scheduling_policy;
  }
  return job.dump();
}

class TFJobSchedulingTest : public ::testing::Test {
 protected:
  ClientResponse Create(std::string_view name, const nlohmann::json& policy) {
    return client_.Post(TFJobsPath(), TFJob(name, policy));
  }
  nlohmann::json GetTFJob(std::string_view name) {
    const ClientResponse got = client_.Get(TFJobsPath() + "/" + std::string(name));
    EXPECT_EQ(got.status, 200) << got.body;
    return Body(got);
  }
  // The TFJob's Suspended condition as "Status Reason", or "" when it has none.
  std::string Suspended(std::string_view name) {
    const nlohmann::json tfjob = GetTFJob(name);
    for (const nlohmann::json& condition : tfjob["status"]["conditions"]) {
      if (condition["type"] == "Suspended") {
        return condition["status"].get<std::string>() + " " +
               condition["reason"].get<std::string>();
      }
    }
    return "";
  }

  void SetUp() override { AddClass("high", 1000); }

  // The admin sets a class in the server's policy, which the server reads on each request.
  void AddClass(const std::string& name, int value) {
    ASSERT_TRUE(
        server_.sharing().SetPriorityClass(name, nlohmann::json{{"value", value}}.dump()).ok());
  }

  LiveServer server_;
  HttpClient client_{server_.port()};
};

TEST_F(TFJobSchedulingTest, APriorityClassMustBeTheAdminsAndIsReadOnEachRequest) {
  const ClientResponse known = Create("urgent-one", {{"priorityClass", "high"}});
  EXPECT_EQ(known.status, 201) << known.body;
  EXPECT_EQ(known.Header("warning"), "") << known.body;

  const ClientResponse unknown = Create("urgent-two", {{"priorityClass", "urgent"}});
  EXPECT_EQ(unknown.status, 403) << unknown.body;
  const nlohmann::json status = Body(unknown);
  EXPECT_EQ(status["reason"], "Forbidden");
  EXPECT_EQ(status["message"],
            "tfjobs.kubeflow.org \"urgent-two\" is forbidden: no PriorityClass with name urgent "
            "was found");
  EXPECT_EQ(client_.Get(TFJobsPath() + "/urgent-two").status, 404);

  AddClass("urgent", 900);
  EXPECT_EQ(Create("urgent-two", {{"priorityClass", "urgent"}}).status, 201);

  // An update naming a class anew is admitted as a create is.
  const ClientResponse changed =
      client_.Send("PATCH", TFJobsPath() + "/urgent-one",
                   R"({"spec":{"runPolicy":{"schedulingPolicy":{"priorityClass":"gone"}}}})",
                   {{"Content-Type", "application/merge-patch+json"}});
  EXPECT_EQ(changed.status, 403) << changed.body;
  EXPECT_EQ(GetTFJob("urgent-one")["spec"]["runPolicy"]["schedulingPolicy"]["priorityClass"],
            "high");
}

TEST_F(TFJobSchedulingTest, QueueAndMinAvailableAreHonouredOrRefusedWithTheirCause) {
  const ClientResponse honoured = Create("gang", {{"queue", "proj"}, {"minAvailable", 2}});
  EXPECT_EQ(honoured.status, 201) << honoured.body;
  EXPECT_EQ(honoured.Header("warning"), "") << honoured.body;

  const ClientResponse other = Create("elsewhere", {{"queue", "team-b"}});
  EXPECT_EQ(other.status, 422) << other.body;
  EXPECT_THAT(Body(other)["message"].get<std::string>(),
              HasSubstr("spec.runPolicy.schedulingPolicy.queue: Invalid value: \"team-b\": a "
                        "queue is a project's quota"));
  const ClientResponse partial = Create("partial", {{"minAvailable", 1}});
  EXPECT_EQ(partial.status, 422) << partial.body;
  EXPECT_THAT(Body(partial)["message"].get<std::string>(),
              HasSubstr("minAvailable: Invalid value: 1: trainyard starts all 2 replicas together "
                        "or none"));
  const ClientResponse warned = Create("sized", {{"minResources", {{"cpu", "4"}}}});
  EXPECT_EQ(warned.status, 201) << warned.body;
  EXPECT_THAT(warned.Header("warning"), HasSubstr("minResources is not used"));
}

TEST_F(TFJobSchedulingTest, TrainyardSuspendShowsAsTheOperatorsConditions) {
  ASSERT_EQ(Create("held", nullptr).status, 201);
  EXPECT_EQ(Suspended("held"), "");
  const std::string verbs = "/trainyard/v1/projects/proj/jobs/held:";
  ASSERT_EQ(client_.Post(verbs + "suspend", "").status, 200);
  EXPECT_EQ(Suspended("held"), "True TFJobSuspended");
  EXPECT_EQ(GetTFJob("held")["spec"]["runPolicy"]["suspend"], true);
  ASSERT_EQ(client_.Post(verbs + "resume", "").status, 200);
  EXPECT_EQ(Suspended("held"), "False TFJobResumed");
  EXPECT_EQ(GetTFJob("held")["spec"]["runPolicy"]["suspend"], false);
}

}  // namespace
}  // namespace trainyard::testing
