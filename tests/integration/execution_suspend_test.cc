// Suspending and resuming an ml v1 job for real, through trainyard v1's own verbs
// (api/trainyard/suspend.h): a running job's replicas are stopped and it goes back to the
// queue (QUEUED, startTime cleared) until resumed, when it runs again; what cannot be suspended
// is refused and changes nothing.
#include <csignal>
#include <filesystem>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "integration/executing_server.h"

namespace trainyard::testing {
namespace {

constexpr std::string_view kSuspendRoutes = "/trainyard/v1/projects/proj/jobs/";

nlohmann::json PausableSleeper(std::string_view job_id, std::string_view package_uri) {
  nlohmann::json job = RuntimeJob(job_id, "trainer.sleeper", package_uri);
  job["trainingInput"]["args"] = {"--on-sigterm", "exit"};
  return job;
}

class ExecutionSuspendTest : public ExecutionTest {
 protected:
  ClientResponse Verb(std::string_view job_id, std::string_view verb,
                      std::string_view body = "{}") {
    return server_.client().Post(
        std::string(kSuspendRoutes) + std::string(job_id) + ":" + std::string(verb), body);
  }
  nlohmann::json Suspension(std::string_view job_id) {
    const ClientResponse answer =
        server_.client().Get(std::string(kSuspendRoutes) + std::string(job_id) + "/suspension");
    EXPECT_EQ(answer.status, 200) << answer.body;
    return nlohmann::json::parse(answer.body, nullptr, false);
  }
  // The trainer pid the sleeper wrote once it ran, when it is not `other`; 0 until then.
  int TrainerPid(std::string_view job_id, int other) {
    const nlohmann::json pids = ReadJson(JobDir(job_id) / "pids.json");
    if (!pids.is_object() || pids["trainer"].get<int>() == other) {
      return 0;
    }
    return pids["trainer"].get<int>();
  }
};

TEST_F(ExecutionSuspendTest, ARunningJobIsStoppedQueuedAndRunsAgainWhenResumed) {
  server_.Submit(PausableSleeper("pausable", package_uri()));
  ASSERT_EQ(server_.WaitForState("pausable", {"RUNNING"})["state"], "RUNNING");
  int first = 0;
  ASSERT_TRUE(Eventually([&] { return (first = TrainerPid("pausable", 0)) != 0; }));

  const ClientResponse suspended = Verb("pausable", "suspend");
  ASSERT_EQ(suspended.status, 200) << suspended.body;
  EXPECT_EQ(nlohmann::json::parse(suspended.body)["suspended"], true) << suspended.body;
  const nlohmann::json queued = server_.WaitForState("pausable", {"QUEUED"});
  EXPECT_EQ(queued["state"], "QUEUED") << queued.dump();
  EXPECT_FALSE(queued.contains("startTime")) << queued.dump();
  EXPECT_TRUE(Eventually([&] { return !ProcessAlive(first); }));
  // The replicas' view is what the executor published on its last pass: it catches up.
  std::string replicas;
  EXPECT_TRUE(Eventually([&] {
    replicas = server_.client().Get(std::string(kSuspendRoutes) + "pausable/replicas").body;
    return replicas == R"({"replicas":[]})";
  })) << replicas;
  EXPECT_EQ(Suspension("pausable"),
            nlohmann::json({{"jobId", "pausable"}, {"state", "QUEUED"}, {"suspended", true}}));
  // Suspended again: nothing changes, and it stays out of the queue's positions.
  const std::string etag = server_.GetJob("pausable")["etag"];
  EXPECT_EQ(Verb("pausable", "suspend").status, 200);
  EXPECT_EQ(server_.GetJob("pausable")["etag"], etag);
  EXPECT_FALSE(server_.GetJob("pausable").contains("jobPosition"));

  const ClientResponse resumed = Verb("pausable", "resume", "");
  ASSERT_EQ(resumed.status, 200) << resumed.body;
  EXPECT_EQ(nlohmann::json::parse(resumed.body)["suspended"], false) << resumed.body;
  EXPECT_EQ(server_.WaitForState("pausable", {"RUNNING"})["state"], "RUNNING");
  int second = 0;
  ASSERT_TRUE(Eventually([&] { return (second = TrainerPid("pausable", first)) != 0; }));
  EXPECT_TRUE(ProcessAlive(second));

  EXPECT_EQ(server_.Cancel("pausable").status, 200);
  EXPECT_EQ(server_.WaitForState("pausable")["state"], "CANCELLED");
  EXPECT_TRUE(Eventually([&] { return !ProcessAlive(second); }));
}

TEST_F(ExecutionSuspendTest, WhatCannotBeSuspendedIsRefusedAndUnchanged) {
  server_.Submit(PausableSleeper("ended", package_uri()));
  ASSERT_EQ(server_.Cancel("ended").status, 200);
  ASSERT_EQ(server_.WaitForState("ended")["state"], "CANCELLED");
  const std::string etag = server_.GetJob("ended")["etag"];
  for (const auto& [verb, done] :
       {std::pair{"suspend", "suspended"}, std::pair{"resume", "resumed"}}) {
    const ClientResponse refused = Verb("ended", verb);
    EXPECT_EQ(refused.status, 400) << refused.body;
    const nlohmann::json error = nlohmann::json::parse(refused.body)["error"];
    EXPECT_EQ(error["status"], "FAILED_PRECONDITION") << refused.body;
    EXPECT_EQ(error["message"], "Job ended is CANCELLED: only a job that has not ended can be " +
                                    std::string(done) + ".")
        << refused.body;
  }
  EXPECT_EQ(server_.GetJob("ended")["etag"], etag);

  EXPECT_EQ(Verb("missing", "suspend").status, 404);
  const ClientResponse unknown_field = Verb("ended", "suspend", R"({"force": true})");
  EXPECT_EQ(unknown_field.status, 400) << unknown_field.body;
  EXPECT_NE(unknown_field.body.find("force"), std::string::npos) << unknown_field.body;
}

}  // namespace
}  // namespace trainyard::testing
