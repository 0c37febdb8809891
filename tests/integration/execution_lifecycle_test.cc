// Jobs run for real by the daemon, over HTTP, with /usr/bin/python3 replicas: a trainer uploaded
// through the storage API to SUCCEEDED, a failing trainer to FAILED with its traceback, a
// replica killed by SIGKILL restarted, and maxRunningTime cancelling a job that runs too long.
#include <csignal>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "base/time_format.h"
#include "integration/executing_server.h"
#include "integration/live_server.h"
#include "support/text.h"

namespace trainyard::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

class LifecycleTest : public ExecutionTest {
 protected:
  // No replica the executor started for `job_id` is still alive.
  void ExpectNoReplicaLeft(const std::string& job_id) {
    const std::vector<int> pids = server_.ReplicaPids(job_id);
    EXPECT_FALSE(pids.empty()) << "no replica of " << job_id << " was recorded";
    for (int pid : pids) {
      EXPECT_FALSE(ProcessAlive(pid)) << "replica " << pid << " of " << job_id;
    }
  }
};

TEST_F(LifecycleTest, SingleReplicaJobSucceedsAndWritesIntoItsJobDir) {
  const nlohmann::json created =
      server_.Submit(RuntimeJob("hello_1", "trainer.hello", package_uri()));
  EXPECT_EQ(created["state"], "QUEUED") << created.dump();

  const nlohmann::json job = server_.WaitForState("hello_1");
  ASSERT_EQ(job["state"], "SUCCEEDED") << job.dump();
  EXPECT_FALSE(job.contains("errorMessage")) << job.dump();
  const auto start = ParseTimestamp(job.value("startTime", ""));
  const auto end = ParseTimestamp(job.value("endTime", ""));
  ASSERT_TRUE(start.has_value() && end.has_value()) << job.dump();
  EXPECT_LE(*start, *end);

  // What the trainer wrote into --job-dir is an object of the bucket.
  const ClientResponse object = server_.GetObject("bkt", "hello_1/model.txt");
  ASSERT_EQ(object.status, 200) << object.body;
  EXPECT_EQ(Body(object)["size"], "8");
  const ClientResponse media =
      server_.client().Get("/storage/v1/b/bkt/o/hello_1%2Fmodel.txt?alt=media");
  EXPECT_EQ(media.body, "weights\n");

  const control::JobLayout layout = server_.Layout("hello_1");
  EXPECT_THAT(server_.Output("hello_1", "master-replica-0"), HasSubstr("hello from the trainer"));
  EXPECT_THAT(ReadFile(layout.staging_log()).value_or("<missing>"),
              HasSubstr("Unpacked yard_trainer-0.1-py3-none-any.whl"));
  ExpectNoReplicaLeft("hello_1");
}

TEST_F(LifecycleTest, FailingTrainerFailsTheJobWithItsTraceback) {
  server_.Submit(RuntimeJob("fail_1", "trainer.fail", package_uri()));

  const nlohmann::json job = server_.WaitForState("fail_1");
  ASSERT_EQ(job["state"], "FAILED") << job.dump();
  const std::string message = job.value("errorMessage", "");
  EXPECT_THAT(message, StartsWith("The replica master 0 exited with a non-zero status of 1."));
  EXPECT_THAT(message, HasSubstr("Traceback (most recent call last)"));
  EXPECT_THAT(message, HasSubstr("ValueError: boom"));
  EXPECT_TRUE(job.contains("startTime") && job.contains("endTime")) << job.dump();
  EXPECT_THAT(server_.Output("fail_1", "master-replica-0"), HasSubstr("ValueError: boom"));
  ExpectNoReplicaLeft("fail_1");
}

TEST_F(LifecycleTest, ReplicaKilledBySigkillIsRestartedAndTheJobSucceeds) {
  server_.Submit(RuntimeJob("flaky_1", "trainer.flaky", package_uri()));
  const std::filesystem::path pid_file = JobDir("flaky_1") / "pid.json";
  ASSERT_TRUE(Eventually([&] { return ReadJson(pid_file).is_object(); }))
      << server_.GetJob("flaky_1").dump();
  const int first = ReadJson(pid_file)["pid"].get<int>();

  ASSERT_EQ(kill(first, SIGKILL), 0);  // as the OOM killer or a host-maintenance event would

  const nlohmann::json job = server_.WaitForState("flaky_1");
  EXPECT_EQ(job["state"], "SUCCEEDED") << job.dump();
  const std::vector<std::string> starts =
      Lines(ReadFile(JobDir("flaky_1") / "starts.txt").value_or(""));
  ASSERT_EQ(starts.size(), 2U);
  EXPECT_EQ(starts[0], "start " + std::to_string(first));
  EXPECT_NE(starts[1], starts[0]);
  // The replica's log is appended to on restart.
  const std::string out = server_.Output("flaky_1", "master-replica-0");
  EXPECT_THAT(out, HasSubstr("start number 1"));
  EXPECT_THAT(out, HasSubstr("start number 2"));
  ExpectNoReplicaLeft("flaky_1");
}

// Validation only asks maxRunningTime to be positive (validate/scheduling.cc), so a short one is
// a real request. (maxWaitTime's minimum is 1800 s: too long for a test.)
TEST_F(LifecycleTest, MaxRunningTimeCancelsAJobThatRunsTooLong) {
  nlohmann::json body = RuntimeJob("slow_1", "trainer.sleeper", package_uri());
  body["trainingInput"]["scheduling"] = {{"maxRunningTime", "3s"}};
  server_.Submit(body);

  const nlohmann::json job = server_.WaitForState("slow_1");
  EXPECT_EQ(job["state"], "CANCELLED") << job.dump();
  EXPECT_EQ(job.value("errorMessage", ""), "Job cancelled: exceeded maxRunningTime.");
  EXPECT_TRUE(job.contains("endTime")) << job.dump();
  ExpectNoReplicaLeft("slow_1");
}

}  // namespace
}  // namespace trainyard::testing
