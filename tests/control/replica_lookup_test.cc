// Which replicas trainyard v1 shows for a job (control/replica_lookup.h): the running ones; the
// recorded ones of its last run only with includeEnded and only when nothing runs.
#include "control/replica_lookup.h"

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::control {
namespace {

using Replicas = std::optional<std::vector<ReplicaInfo>>;

std::vector<ReplicaInfo> Named(std::vector<std::string> names) {
  std::vector<ReplicaInfo> replicas;
  for (std::string& name : names) {
    replicas.push_back(ReplicaInfo{.task_name = std::move(name)});
  }
  return replicas;
}

struct ShownCase {
  std::string name;
  bool running_set = true;
  Replicas running;
  bool recorded_set = true;
  Replicas recorded;
  bool include_ended = false;
  std::vector<std::string> expected;  // task names
  bool reads_recorded = false;
};

class ShownReplicasTest : public ::testing::TestWithParam<ShownCase> {};

TEST_P(ShownReplicasTest, ShowsTheRunningElseTheRecordedOnlyWhenAsked) {
  const ShownCase& tc = GetParam();
  std::vector<std::string> asked;
  ReplicaSource running;
  if (tc.running_set) {
    running = [&](std::string_view project, std::string_view job_id) {
      asked.push_back("running " + std::string(project) + "/" + std::string(job_id));
      return tc.running;
    };
  }
  ReplicaSource recorded;
  if (tc.recorded_set) {
    recorded = [&](std::string_view project, std::string_view job_id) {
      asked.push_back("recorded " + std::string(project) + "/" + std::string(job_id));
      return tc.recorded;
    };
  }
  std::vector<std::string> names;
  for (const ReplicaInfo& info : ShownReplicas(running, recorded, "p", "j", tc.include_ended)) {
    names.push_back(info.task_name);
  }
  EXPECT_EQ(names, tc.expected);
  EXPECT_EQ(std::find(asked.begin(), asked.end(), "recorded p/j") != asked.end(),
            tc.reads_recorded);
}

const std::vector<ReplicaInfo> kRunning = Named({"master-replica-0", "worker-replica-0"});
const std::vector<ReplicaInfo> kRecorded = Named({"master-replica-0-ended"});

INSTANTIATE_TEST_SUITE_P(
    Cases, ShownReplicasTest,
    ::testing::Values(ShownCase{.name = "RunningWithoutIncludeEnded",
                                .running = kRunning,
                                .recorded = kRecorded,
                                .expected = {"master-replica-0", "worker-replica-0"}},
                      ShownCase{.name = "RunningWinsOverRecordedEvenWhenAsked",
                                .running = kRunning,
                                .recorded = kRecorded,
                                .include_ended = true,
                                .expected = {"master-replica-0", "worker-replica-0"}},
                      ShownCase{.name = "RunningButNoReplicasYetHidesTheRecorded",
                                .running = std::vector<ReplicaInfo>{},
                                .recorded = kRecorded,
                                .include_ended = true,
                                .expected = {}},
                      ShownCase{.name = "NothingRunsAndNotAskedShowsNothing",
                                .running = std::nullopt,
                                .recorded = kRecorded,
                                .expected = {}},
                      ShownCase{.name = "NothingRunsAndAskedShowsTheRecorded",
                                .running = std::nullopt,
                                .recorded = kRecorded,
                                .include_ended = true,
                                .expected = {"master-replica-0-ended"},
                                .reads_recorded = true},
                      ShownCase{.name = "NothingRunsAskedButNoRecord",
                                .running = std::nullopt,
                                .recorded = std::nullopt,
                                .include_ended = true,
                                .expected = {},
                                .reads_recorded = true},
                      ShownCase{.name = "NoRecordedSourceShowsNothing",
                                .running = std::nullopt,
                                .recorded_set = false,
                                .include_ended = true,
                                .expected = {}},
                      ShownCase{.name = "NoRunningSourceIsNothingRunning",
                                .running_set = false,
                                .recorded = kRecorded,
                                .include_ended = true,
                                .expected = {"master-replica-0-ended"},
                                .reads_recorded = true}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::control
