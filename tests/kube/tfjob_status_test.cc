#include "kube/tfjob_status.h"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "base/time_format.h"
#include "kube/tfjob_decode.h"
#include "kube/tfjob_fixtures.h"
#include "kube/tfjob_mapping.h"

namespace trainyard::kube {
namespace {

using nlohmann::json;
using ::testing::ElementsAre;

const WallTime kCreated = *ParseTimestamp("2025-01-01T10:00:00Z");
const WallTime kStarted = *ParseTimestamp("2025-01-01T10:00:05Z");
const WallTime kEnded = *ParseTimestamp("2025-01-01T11:00:00Z");
const WallTime kNow = *ParseTimestamp("2025-01-01T12:00:00Z");

// The baseline TFJob (Chief, 2 Worker, PS) as the engine's job in `state`.
model::Job JobIn(model::JobState state) {
  Result<model::Job> mapped = ToJob(testing::ValidTFJob(), MappingContext{.job_id = "mnist"});
  model::Job job = *mapped;
  job.state = state;
  job.create_time = kCreated;
  if (state != model::JobState::kQueued) {
    job.start_time = kStarted;
  }
  if (model::IsTerminal(state)) {
    job.end_time = kEnded;
  }
  return job;
}

std::string Summary(const JobCondition& c) {
  return c.type + "=" + c.status + " " + c.reason + ": " + c.message;
}

struct ConditionCase {
  std::string name;
  model::JobState state;
  std::vector<ReplicaView> replicas;
  std::vector<std::string> conditions;
  bool suspended = false;
  std::string error_message = "";
  bool deleted = false;
  bool resumed = false;
};

class ConditionsTest : public ::testing::TestWithParam<ConditionCase> {};

TEST_P(ConditionsTest, FollowTheEngineState) {
  const ConditionCase& c = GetParam();
  model::Job job = JobIn(c.state);
  job.extras->suspended = c.suspended;
  job.extras->resumed = c.resumed;
  job.error_message = c.error_message;
  if (c.deleted) {
    job.extras->kube->deletion_time = kEnded;
  }
  std::vector<std::string> got;
  for (const JobCondition& condition : StatusOf(job, c.replicas, kNow).conditions) {
    got.push_back(Summary(condition));
  }
  EXPECT_EQ(got, c.conditions);
}

const std::string kCreatedText = "Created=True TFJobCreated: TFJob team-a/mnist is created.";
const std::string kRunningText = "Running=True TFJobRunning: TFJob team-a/mnist is running.";
const std::string kResumedText = "Suspended=False TFJobResumed: TFJob team-a/mnist is resumed.";
const std::string kRanText = "Running=False TFJobRunning: TFJob team-a/mnist is running.";
const ReplicaView kRestarting{.task_name = "worker-replica-1",
                              .state = ReplicaState::kRestarting,
                              .restarts = 1,
                              .exit_code = 137};

INSTANTIATE_TEST_SUITE_P(
    States, ConditionsTest,
    ::testing::Values(
        ConditionCase{"Queued", model::JobState::kQueued, {}, {kCreatedText}},
        ConditionCase{"Preparing", model::JobState::kPreparing, {}, {kCreatedText}},
        ConditionCase{"Suspended",
                      model::JobState::kQueued,
                      {},
                      {kCreatedText,
                       "Suspended=True TFJobSuspended: TFJob team-a/mnist is "
                       "suspended."},
                      true},
        ConditionCase{"Running", model::JobState::kRunning, {}, {kCreatedText, kRunningText}},
        // runPolicy.suspend flipped back (or `trainyard jobs resume`): the operator's
        // Suspended=False, TFJobResumed, before the job runs again and after.
        ConditionCase{"ResumedWaiting",
                      model::JobState::kQueued,
                      {},
                      {kCreatedText, kResumedText},
                      false,
                      "",
                      false,
                      true},
        ConditionCase{"ResumedRunning",
                      model::JobState::kRunning,
                      {},
                      {kCreatedText, kResumedText, kRunningText},
                      false,
                      "",
                      false,
                      true},
        ConditionCase{
            "SuspendedAgain",
            model::JobState::kQueued,
            {},
            {kCreatedText, "Suspended=True TFJobSuspended: TFJob team-a/mnist is suspended."},
            true,
            "",
            false,
            true},
        ConditionCase{"Restarting",
                      model::JobState::kRunning,
                      {kRestarting},
                      {kCreatedText,
                       "Restarting=True TFJobRestarting: TFJob team-a/mnist is "
                       "restarting because a replica failed."}},
        ConditionCase{"Cancelling", model::JobState::kCancelling, {}, {kCreatedText, kRunningText}},
        ConditionCase{"Succeeded",
                      model::JobState::kSucceeded,
                      {},
                      {kCreatedText, kRanText,
                       "Succeeded=True TFJobSucceeded: TFJob team-a/mnist successfully "
                       "completed."}},
        ConditionCase{"SucceededWhileSuspended",
                      model::JobState::kSucceeded,
                      {},
                      {kCreatedText, kRanText,
                       "Succeeded=True TFJobSucceeded: TFJob team-a/mnist successfully "
                       "completed."},
                      true},
        ConditionCase{"Failed",
                      model::JobState::kFailed,
                      {},
                      {kCreatedText, kRanText,
                       "Failed=True TFJobFailed: TFJob team-a/mnist has failed: The replica "
                       "worker 1 exited with a non-zero status of 1."},
                      false,
                      "The replica worker 1 exited with a non-zero status of 1."},
        ConditionCase{
            "FailedWithoutMessage",
            model::JobState::kFailed,
            {},
            {kCreatedText, kRanText, "Failed=True TFJobFailed: TFJob team-a/mnist has failed."}},
        ConditionCase{"Cancelled",
                      model::JobState::kCancelled,
                      {},
                      {kCreatedText, kRanText,
                       "Failed=True TFJobFailed: TFJob team-a/mnist has failed because it was "
                       "cancelled."}},
        ConditionCase{"Deleted",
                      model::JobState::kCancelled,
                      {},
                      {kCreatedText, kRanText,
                       "Failed=True TFJobFailed: TFJob team-a/mnist has failed because it was "
                       "deleted."},
                      false,
                      "",
                      true}),
    [](const auto& tc) { return tc.param.name; });

TEST(StatusOfTest, ConditionTimesComeFromTheJob) {
  const TFJobStatus status = StatusOf(JobIn(model::JobState::kSucceeded), {}, kNow);
  ASSERT_EQ(status.conditions.size(), 3U);
  EXPECT_EQ(status.conditions[0].last_transition_time, kCreated);
  EXPECT_EQ(status.conditions[1].last_update_time, kEnded);
  EXPECT_EQ(status.conditions[2].last_transition_time, kEnded);
  EXPECT_EQ(status.start_time, kStarted);
  EXPECT_EQ(status.completion_time, kEnded);
  // the time of the status's last change, not of the read
  EXPECT_EQ(status.last_reconcile_time, kEnded);
}

TEST(StatusOfTest, CountsReplicasPerKubeflowType) {
  const std::vector<ReplicaView> replicas = {
      {.task_name = "master-replica-0", .state = ReplicaState::kRunning},
      {.task_name = "worker-replica-0", .state = ReplicaState::kExited, .exit_code = 0},
      {.task_name = "worker-replica-1", .state = ReplicaState::kExited, .exit_code = 1},
      {.task_name = "ps-replica-0", .state = ReplicaState::kPending},
      {.task_name = "bogus", .state = ReplicaState::kRunning},
  };
  const TFJobStatus status = StatusOf(JobIn(model::JobState::kRunning), replicas, kNow);
  EXPECT_EQ(status.replica_statuses,
            (std::map<std::string, ReplicaStatus>{
                {"Chief", {1, 0, 0}}, {"PS", {0, 0, 0}}, {"Worker", {0, 1, 1}}}));
  EXPECT_EQ(status.completion_time, std::nullopt);
}

TEST(StatusOfTest, WorkerZeroAsPrimaryIsKubeflowsWorkerZero) {
  Result<model::Job> mapped =
      ToJob(DecodeTFJob(testing::Manifest(R"({"tfReplicaSpecs": {"Worker": {"replicas": 2,
          "template": {"spec": {"containers": [{"name": "tensorflow", "image": "w"}]}}}}})"))
                ->job,
            MappingContext{.job_id = "mnist"});
  model::Job job = *mapped;
  job.state = model::JobState::kRunning;
  const TFJobStatus status =
      StatusOf(job,
               {{.task_name = "master-replica-0", .state = ReplicaState::kRunning},
                {.task_name = "worker-replica-0", .state = ReplicaState::kRestarting}},
               kNow);
  EXPECT_EQ(status.replica_statuses, (std::map<std::string, ReplicaStatus>{{"Worker", {1, 0, 1}}}));
}

TEST(EncodeTFJobStatusTest, WritesTheOperatorsShape) {
  const TFJobStatus status =
      StatusOf(JobIn(model::JobState::kRunning),
               {{.task_name = "master-replica-0", .state = ReplicaState::kRunning}}, kNow);
  EXPECT_EQ(json::parse(EncodeTFJobStatus(status)), json::parse(R"({
    "conditions": [
      {"type": "Created", "status": "True", "reason": "TFJobCreated",
       "message": "TFJob team-a/mnist is created.",
       "lastUpdateTime": "2025-01-01T10:00:00Z", "lastTransitionTime": "2025-01-01T10:00:00Z"},
      {"type": "Running", "status": "True", "reason": "TFJobRunning",
       "message": "TFJob team-a/mnist is running.",
       "lastUpdateTime": "2025-01-01T10:00:05Z", "lastTransitionTime": "2025-01-01T10:00:05Z"}],
    "replicaStatuses": {"Chief": {"active": 1}, "PS": {}, "Worker": {}},
    "startTime": "2025-01-01T10:00:05Z",
    "lastReconcileTime": "2025-01-01T10:00:05Z"})"));
  const json tfjob = json::parse(EncodeTFJob(testing::ValidTFJob(), &status));
  EXPECT_EQ(tfjob["status"]["conditions"].back()["type"], "Running");
}

TEST(PodsOfTest, NamesAndLabelsEveryReplica) {
  model::Job job = JobIn(model::JobState::kRunning);
  job.extras->kube->deletion_time.reset();
  const std::vector<Pod> pods = PodsOf(
      job,
      {{.task_name = "master-replica-0", .state = ReplicaState::kRunning, .started_at = kStarted},
       {.task_name = "worker-replica-0", .state = ReplicaState::kRestarting, .restarts = 2},
       {.task_name = "worker-replica-1", .state = ReplicaState::kExited, .exit_code = 0}},
      "node-1");
  std::vector<std::string> names;
  std::vector<std::string> states;
  for (const Pod& pod : pods) {
    names.push_back(pod.name);
    states.push_back(pod.phase + "/" + pod.reason);
  }
  EXPECT_THAT(names,
              ElementsAre("mnist-chief-0", "mnist-ps-0", "mnist-worker-0", "mnist-worker-1"));
  EXPECT_THAT(states, ElementsAre("Running/", "Pending/ContainerCreating",
                                  "Running/CrashLoopBackOff", "Succeeded/Completed"));
  const Pod& chief = pods[0];
  EXPECT_EQ(chief.labels, (std::map<std::string, std::string>{
                              {"training.kubeflow.org/operator-name", "tfjob-controller"},
                              {"training.kubeflow.org/job-name", "mnist"},
                              {"training.kubeflow.org/replica-type", "chief"},
                              {"training.kubeflow.org/replica-index", "0"},
                              {"training.kubeflow.org/job-role", "master"}}));
  EXPECT_TRUE(chief.ready);
  EXPECT_EQ(chief.node_name, "node-1");
  EXPECT_EQ(pods[1].node_name, "");
  EXPECT_EQ(pods[2].restart_count, 2);
  EXPECT_FALSE(pods[2].labels.contains("training.kubeflow.org/job-role"));
  EXPECT_EQ(chief.image, "registry.local/trainer:1.0");
}

TEST(PodsOfTest, NoneWhileSuspendedAndOnlySeenOnesAfterTheEnd) {
  model::Job job = JobIn(model::JobState::kQueued);
  job.extras->suspended = true;
  EXPECT_TRUE(PodsOf(job, {}, "n").empty());
  job = JobIn(model::JobState::kFailed);
  const std::vector<Pod> pods = PodsOf(
      job, {{.task_name = "ps-replica-0", .state = ReplicaState::kExited, .exit_code = 143}}, "n");
  ASSERT_EQ(pods.size(), 1U);
  EXPECT_EQ(pods[0].phase, "Failed");
  EXPECT_EQ(pods[0].reason, "Error");
}

TEST(EncodePodTest, IsACoreV1Pod) {
  model::Job job = JobIn(model::JobState::kRunning);
  const std::vector<Pod> pods = PodsOf(
      job,
      {{.task_name = "master-replica-0", .state = ReplicaState::kRunning, .started_at = kStarted}},
      "node-1");
  job.extras->kube->uid = "u-1";
  const json pod = json::parse(EncodePod(pods[0]));
  EXPECT_EQ(pod["apiVersion"], "v1");
  EXPECT_EQ(pod["kind"], "Pod");
  EXPECT_EQ(pod["metadata"]["name"], "mnist-chief-0");
  EXPECT_EQ(pod["metadata"]["namespace"], "team-a");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["kind"], "TFJob");
  EXPECT_EQ(pod["metadata"]["ownerReferences"][0]["name"], "mnist");
  EXPECT_EQ(pod["spec"]["containers"][0]["name"], "tensorflow");
  EXPECT_EQ(pod["spec"]["nodeName"], "node-1");
  EXPECT_EQ(pod["status"]["phase"], "Running");
  EXPECT_EQ(pod["status"]["containerStatuses"][0]["state"]["running"]["startedAt"],
            "2025-01-01T10:00:05Z");
  EXPECT_EQ(pod["status"]["containerStatuses"][0]["ready"], true);
}

// The chief's container, as `view` (or no view) makes it in a job in `job_state`: kubectl and
// the Python client parse every time and require name, image, imageID, ready and restartCount.
struct ContainerCase {
  std::string name;
  model::JobState job_state;
  std::optional<ReplicaView> view;
  std::string state;       // the expected `state` object
  std::string last_state;  // the expected `lastState` object
  bool has_container_id;
};

class ContainerStatusTest : public ::testing::TestWithParam<ContainerCase> {};

TEST_P(ContainerStatusTest, HasTheRequiredFieldsAndRealTimes) {
  const ContainerCase& c = GetParam();
  std::vector<ReplicaView> views;
  if (c.view.has_value()) {
    views.push_back(*c.view);
  }
  const std::vector<Pod> pods = PodsOf(JobIn(c.job_state), views, "node-1");
  ASSERT_FALSE(pods.empty());
  ASSERT_EQ(pods[0].name, "mnist-chief-0");
  const json status = json::parse(EncodePod(pods[0]))["status"]["containerStatuses"][0];
  EXPECT_EQ(status["name"], "tensorflow");
  EXPECT_TRUE(status["image"].is_string());
  EXPECT_TRUE(status["imageID"].is_string());
  EXPECT_TRUE(status["ready"].is_boolean());
  EXPECT_TRUE(status["restartCount"].is_number_integer());
  EXPECT_EQ(status["state"], json::parse(c.state));
  EXPECT_EQ(status["lastState"], json::parse(c.last_state));
  EXPECT_EQ(status.contains("containerID"), c.has_container_id);
}

const WallTime kReplicaStarted = *ParseTimestamp("2025-01-01T10:01:05Z");
const WallTime kReplicaEnded = *ParseTimestamp("2025-01-01T10:02:00Z");

INSTANTIATE_TEST_SUITE_P(
    States, ContainerStatusTest,
    ::testing::Values(
        ContainerCase{"RunningSinceItsStart", model::JobState::kRunning,
                      ReplicaView{.task_name = "master-replica-0",
                                  .state = ReplicaState::kRunning,
                                  .started_at = kReplicaStarted},
                      R"({"running": {"startedAt": "2025-01-01T10:01:05Z"}})", "{}", true},
        // The executor did not say when: the job's start, never "" (kubectl: parsing time "").
        ContainerCase{"RunningWithoutAStartSinceTheJobs", model::JobState::kRunning,
                      ReplicaView{.task_name = "master-replica-0", .state = ReplicaState::kRunning},
                      R"({"running": {"startedAt": "2025-01-01T10:00:05Z"}})", "{}", true},
        ContainerCase{"RestartingShowsItsLastEnd", model::JobState::kRunning,
                      ReplicaView{.task_name = "master-replica-0",
                                  .state = ReplicaState::kRestarting,
                                  .restarts = 1,
                                  .exit_code = 3,
                                  .started_at = kReplicaStarted,
                                  .finished_at = kReplicaEnded},
                      R"({"waiting": {"reason": "CrashLoopBackOff"}})",
                      R"({"terminated": {"exitCode": 3, "reason": "Error",
                          "startedAt": "2025-01-01T10:01:05Z",
                          "finishedAt": "2025-01-01T10:02:00Z"}})",
                      true},
        // An ended job's replica read back from its exit file: the job's times.
        ContainerCase{
            "ExitedWithoutTimesTakesTheJobs", model::JobState::kFailed,
            ReplicaView{
                .task_name = "master-replica-0", .state = ReplicaState::kExited, .exit_code = 143},
            R"({"terminated": {"exitCode": 143, "reason": "Error",
                          "startedAt": "2025-01-01T10:00:05Z",
                          "finishedAt": "2025-01-01T11:00:00Z"}})",
            "{}", true},
        ContainerCase{"CreatingHasNoContainerYet", model::JobState::kRunning, std::nullopt,
                      R"({"waiting": {"reason": "ContainerCreating"}})", "{}", false}),
    [](const auto& tc) { return tc.param.name; });

// A terminated container whose times nobody knows says null, as Kubernetes writes a zero time.
TEST(EncodePodTest, UnknownTimesAreNullNotEmpty) {
  const Pod pod{.name = "p",
                .namespace_name = "n",
                .phase = "Failed",
                .container_state = "terminated",
                .reason = "Error",
                .exit_code = 1};
  const json out = json::parse(EncodePod(pod));
  EXPECT_EQ(out["status"]["containerStatuses"][0]["state"]["terminated"],
            json::parse(R"({"exitCode": 1, "reason": "Error", "startedAt": null,
                            "finishedAt": null})"));
}

}  // namespace
}  // namespace trainyard::kube
