// Preemption for real (issue #34, sched/fair_share.h): on one emulated T4, a low-priority job
// running is preempted by a high-priority one: its replica gets SIGTERM, it goes back to QUEUED
// (not FAILED), its service log says by what, and once the high-priority job ends it runs again.
// And the fair-share order's memory of who used the devices (sched/recent_usage.h) survives a
// restart of the server on the same data dir.
#include <filesystem>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "integration/executing_server.h"

namespace trainyard::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kOneBox[] = R"(nodes:
  - name: box
    cpus: 8
    memory: 32Gi
)";

// trainer.sleeper (runs until SIGTERM) on 1 × T4 at `priority`.
nlohmann::json SleeperOnT4(std::string_view job_id, std::string_view package_uri, int priority) {
  nlohmann::json job = RuntimeJob(job_id, "trainer.sleeper", package_uri);
  nlohmann::json& input = job["trainingInput"];
  input["scaleTier"] = "CUSTOM";
  input["masterType"] = "n1-standard-4";
  input["masterConfig"] = {{"acceleratorConfig", {{"count", "1"}, {"type", "NVIDIA_TESLA_T4"}}}};
  input["scheduling"] = {{"priority", priority}};
  return job;
}

class PreemptionTest : public ExecutionTest {
 protected:
  static app::ServeOptions OneT4() {
    app::ServeOptions options = ExecutingServer::DefaultOptions();
    options.accelerator_emulation = 1;  // one device of each type
    return options;
  }
  PreemptionTest() : ExecutionTest(OneT4(), kOneBox) {}

  // The trainer pid the job's sleeper wrote, once it is not `other`; 0 when none came in time.
  int SleeperPid(std::string_view job_id, int other = 0) {
    const std::filesystem::path file = JobDir(job_id) / "pids.json";
    int pid = 0;
    Eventually([&] {
      const nlohmann::json pids = ReadJson(file);
      pid = pids.is_object() ? pids["trainer"].get<int>() : 0;
      return pid != 0 && pid != other;
    });
    return pid != other ? pid : 0;
  }
};

TEST_F(PreemptionTest, ALowPriorityJobGivesWayThenRunsAgain) {
  server_.Submit(SleeperOnT4("low", package_uri(), 0));
  ASSERT_EQ(server_.WaitForState("low", {"RUNNING"})["state"], "RUNNING");
  const int first = SleeperPid("low");
  ASSERT_NE(first, 0);

  server_.Submit(SleeperOnT4("hi", package_uri(), 5));
  // hi holds the only T4 until it is cancelled, so low stays QUEUED meanwhile.
  const nlohmann::json queued = server_.WaitForState("low", {"QUEUED"});
  ASSERT_EQ(queued["state"], "QUEUED") << queued.dump();
  EXPECT_FALSE(queued.contains("errorMessage")) << queued.dump();
  EXPECT_TRUE(Eventually([&] { return !ProcessAlive(first); }));
  ASSERT_EQ(server_.WaitForState("hi", {"RUNNING"})["state"], "RUNNING");
  EXPECT_EQ(server_.GetJob("low")["state"], "QUEUED");
  EXPECT_THAT(ReadFile(server_.Layout("low").service_log()).value_or(""),
              HasSubstr("The job was preempted by job proj/hi, of higher priority (5 over 0)"));

  ASSERT_EQ(server_.Cancel("hi").status, 200);
  EXPECT_EQ(server_.WaitForState("hi")["state"], "CANCELLED");
  ASSERT_EQ(server_.WaitForState("low", {"RUNNING"})["state"], "RUNNING");
  const int second = SleeperPid("low", first);
  EXPECT_NE(second, 0) << "low did not run again";

  ASSERT_EQ(server_.Cancel("low").status, 200);
  EXPECT_EQ(server_.WaitForState("low")["state"], "CANCELLED");
}

TEST_F(PreemptionTest, TheProjectThatUsedLessStillGoesFirstAfterARestart) {
  HttpClient& client = server_.client();
  auto state = [&](std::string_view project, std::string_view job_id) {
    return Body(server_.client().Get(JobPath(job_id, project))).value("state", "");
  };
  // Project "heavy" uses the T4 (its trainer runs), then its job is cancelled.
  ASSERT_EQ(client.Post(JobsPath("heavy"), SleeperOnT4("used", package_uri(), 0).dump()).status,
            200);
  EXPECT_TRUE(Eventually([&] { return state("heavy", "used") == "RUNNING"; }));
  EXPECT_NE(SleeperPid("used"), 0);
  ASSERT_EQ(client.Post(JobPath("used", "heavy") + ":cancel", "{}").status, 200);
  EXPECT_TRUE(Eventually([&] { return state("heavy", "used") == "CANCELLED"; }));

  // Restarted holding the queue, so that both next jobs are queued before any pass orders them:
  // heavy's first, then light's.
  server_.options().hold_queue = true;
  server_.Restart();
  for (const auto& [project, job_id] :
       {std::pair{"heavy", "heavy_next"}, {"light", "light_next"}}) {
    const ClientResponse created =
        server_.client().Post(JobsPath(project), SleeperOnT4(job_id, package_uri(), 0).dump());
    ASSERT_EQ(created.status, 200) << created.body;
  }
  server_.options().hold_queue = false;
  server_.Restart();

  // The T4 goes to the project that used less, although heavy's job came first.
  EXPECT_TRUE(Eventually([&] { return state("light", "light_next") == "RUNNING"; }));
  const nlohmann::json waiting = Body(server_.client().Get(JobPath("heavy_next", "heavy")));
  EXPECT_EQ(waiting.value("state", ""), "QUEUED") << waiting.dump();
  EXPECT_EQ(waiting.value("jobPosition", ""), "1") << waiting.dump();
  ASSERT_EQ(server_.client().Post(JobPath("light_next", "light") + ":cancel", "{}").status, 200);
  ASSERT_EQ(server_.client().Post(JobPath("heavy_next", "heavy") + ":cancel", "{}").status, 200);
}

}  // namespace
}  // namespace trainyard::testing
