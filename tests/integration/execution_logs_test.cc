// A real replica's output through the logging v2 API: every line queryable, in order, with its
// severity, task and a unique increasing insertId; the service's own messages beside it.
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "integration/executing_server.h"

namespace trainyard::testing {
namespace {

using ::testing::Contains;

class LogsTest : public ExecutionTest {
 protected:
  // Every entry matching `filter` for job `job_id`.
  std::vector<nlohmann::json> Entries(const std::string& job_id, const std::string& filter) {
    return ListLogEntries(server_.client(), job_id, filter);
  }
};

TEST_F(LogsTest, HundredThousandLinesAreAllQueryableInOrder) {
  constexpr int kLines = 100'000;
  nlohmann::json body = RuntimeJob("loud_1", "trainer.chatter", package_uri());
  body["trainingInput"]["args"] = {"--lines=" + std::to_string(kLines), "--interval=0",
                                   "--streams=stdout"};
  server_.Submit(body);
  ASSERT_EQ(server_.WaitForState("loud_1")["state"], "SUCCEEDED");

  const std::vector<nlohmann::json> entries =
      Entries("loud_1", "resource.labels.task_name=\"master-replica-0\"");
  ASSERT_EQ(entries.size(), static_cast<std::size_t>(kLines));
  std::string previous_time;
  std::string previous_id;
  int out_of_place = 0;
  for (int i = 0; i < kLines; ++i) {
    const nlohmann::json& entry = entries[static_cast<std::size_t>(i)];
    out_of_place += entry.value("textPayload", "") != "master-replica-0 line " + std::to_string(i);
    const std::string time = entry.value("timestamp", "");
    const std::string id = entry.value("insertId", "");
    out_of_place += time < previous_time || id <= previous_id;
    previous_time = time;
    previous_id = id;
  }
  EXPECT_EQ(out_of_place, 0);
  EXPECT_EQ(entries.front()["severity"], "INFO");
  EXPECT_EQ(entries.front()["resource"]["labels"]["task_name"], "master-replica-0");
  EXPECT_EQ(entries.front()["resource"]["labels"]["job_id"], "loud_1");
  EXPECT_EQ(entries.front()["logName"], "projects/proj/logs/master-replica-0");
}

TEST_F(LogsTest, StderrIsErrorAndTheServiceSaysHowTheJobEnded) {
  server_.Submit(RuntimeJob("fail_1", "trainer.fail", package_uri()));
  ASSERT_EQ(server_.WaitForState("fail_1")["state"], "FAILED");

  std::vector<std::string> errors;
  for (const nlohmann::json& entry :
       Entries("fail_1", "severity>=ERROR AND NOT resource.labels.task_name=\"service\"")) {
    errors.push_back(entry.value("textPayload", ""));
  }
  EXPECT_THAT(errors, Contains("ValueError: boom"));
  EXPECT_THAT(errors, Contains("Traceback (most recent call last):"));

  std::vector<std::string> service;
  for (const nlohmann::json& entry : Entries("fail_1", "resource.labels.task_name=\"service\"")) {
    service.push_back(entry["jsonPayload"].value("message", ""));
  }
  EXPECT_THAT(service, Contains("Waiting for training program to start."));
  EXPECT_THAT(service, Contains("Job failed. The replica master 0 exited with a non-zero status "
                                "of 1. Termination reason: Error. "
                                "Traceback (most recent call last):"));
}

}  // namespace
}  // namespace trainyard::testing
