#include "kube/events.h"

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/time_format.h"

namespace trainyard::kube {
namespace {

using nlohmann::json;

const InvolvedObject kMnist{.api_version = "kubeflow.org/v1",
                            .kind = "TFJob",
                            .name = "mnist",
                            .namespace_name = "team-a",
                            .uid = "u-1"};

struct ReasonCase {
  std::string name;
  std::string message;
  std::string reason;
  std::string type;
};

class EventOfTest : public ::testing::TestWithParam<ReasonCase> {};

TEST_P(EventOfTest, TakesItsReasonFromTheWords) {
  const Event event = EventOf(GetParam().message, WallTime{}, kMnist, "mnist.0");
  EXPECT_EQ(event.reason, GetParam().reason);
  EXPECT_EQ(event.type, GetParam().type);
  EXPECT_EQ(event.message, GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Messages, EventOfTest,
    ::testing::Values(
        ReasonCase{"Started", "Replica worker-replica-0 started.", "Started", "Normal"},
        ReasonCase{"RestartingBeforeFailed", "worker-replica-0 failed; restarting in 10s",
                   "Restarting", "Warning"},
        ReasonCase{"Failed", "Job failed.", "Failed", "Warning"},
        ReasonCase{"PullFailure", "Image x could not be pulled", "ErrImagePull", "Warning"},
        ReasonCase{"NonZero", "exited with a non-zero status of 3", "Error", "Warning"},
        ReasonCase{"Cancelled", "Job was CANCELLED", "Cancelled", "Warning"},
        ReasonCase{"Pulling", "Pulling image x", "Pulling", "Normal"},
        ReasonCase{"Succeeded", "Job completed successfully.", "Succeeded", "Normal"},
        ReasonCase{"Other", "Waiting for 2 GPUs", "Trainyard", "Normal"}),
    [](const auto& tc) { return tc.param.name; });

TEST(EncodeEventTest, IsACoreV1Event) {
  const WallTime time = *ParseTimestamp("2025-01-01T10:00:05Z");
  const json event = json::parse(
      EncodeEvent(EventOf("Replica master-replica-0 started.", time, kMnist, "mnist.42")));
  EXPECT_EQ(event, json::parse(R"({
    "apiVersion": "v1", "kind": "Event",
    "metadata": {"name": "mnist.42", "namespace": "team-a",
                 "creationTimestamp": "2025-01-01T10:00:05Z"},
    "involvedObject": {"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "name": "mnist",
                       "namespace": "team-a", "uid": "u-1"},
    "reason": "Started", "message": "Replica master-replica-0 started.",
    "source": {"component": "trainyard"},
    "firstTimestamp": "2025-01-01T10:00:05Z", "lastTimestamp": "2025-01-01T10:00:05Z",
    "count": 1, "type": "Normal"})"));
}

// A waiting job's reason, whatever its words ("failed" would make EventOf's a Warning).
TEST(PendingEventTest, IsANormalPendingEventWithTheReasonAsItsMessage) {
  const std::string why =
      "Project team-a uses 2 of its 1 × NVIDIA_TESLA_T4 (quota), and no idle "
      "devices are left to borrow; a trial failed.";
  const Event event = PendingEvent(why, WallTime{}, kMnist, "mnist.pending");
  EXPECT_EQ(event.reason, "Pending");
  EXPECT_EQ(event.type, "Normal");
  EXPECT_EQ(event.message, why);
  EXPECT_EQ(event.name, "mnist.pending");
  EXPECT_EQ(event.namespace_name, "team-a");
  EXPECT_EQ(event.involved, kMnist);
}

}  // namespace
}  // namespace trainyard::kube
