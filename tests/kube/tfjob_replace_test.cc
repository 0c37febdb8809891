// kube::MergeReplacement and kube::MarkDeleted (kube/tfjob_update.h): the stored job an accepted
// TFJob update or delete makes.
#include <chrono>
#include <functional>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "kube/tfjob_fixtures.h"
#include "kube/tfjob_mapping.h"
#include "kube/tfjob_update.h"

namespace trainyard::kube {
namespace {

model::Job MappedJob(const TFJob& tfjob, const std::string& uid = "uid-1") {
  Result<model::Job> job =
      ToJob(tfjob,
            MappingContext{.job_id = "mnist", .uid = uid, .document = EncodeTFJob(tfjob, nullptr)});
  EXPECT_TRUE(job.ok()) << job.status().ToString();
  return job.ok() ? *job : model::Job{};
}

void SetWorkers(TFJob& tfjob, std::int32_t replicas) {
  for (ReplicaSpec& spec : tfjob.replica_specs) {
    if (spec.type == "Worker") {
      spec.replicas = replicas;
    }
  }
}

std::optional<Duration> MaxRunningTime(const model::Job& job) {
  if (!job.training_input.has_value() || !job.training_input->scheduling.has_value()) {
    return std::nullopt;
  }
  return job.training_input->scheduling->max_running_time;
}

struct MergeCase {
  std::string name;
  bool started;
  bool spec_changed;
  std::function<void(model::Job& current)> stored;  // the job as stored now, from the TFJob
  std::function<void(TFJob& next)> update;          // the TFJob as updated
  // What the merged job must show, given the stored and the mapped job.
  std::function<void(const model::Job& current, const model::Job& mapped, const model::Job& next)>
      expect;
};

class MergeReplacementTest : public ::testing::TestWithParam<MergeCase> {};

TEST_P(MergeReplacementTest, MovesWhatTheRuleSays) {
  const MergeCase& tc = GetParam();
  model::Job current = MappedJob(testing::ValidTFJob());
  current.state = tc.started ? model::JobState::kRunning : model::JobState::kQueued;
  current.etag = "ZTA=";
  if (tc.stored) {
    tc.stored(current);
  }
  TFJob next_tfjob = testing::ValidTFJob();
  if (tc.update) {
    tc.update(next_tfjob);
  }
  const model::Job mapped = MappedJob(next_tfjob);

  const std::optional<model::Job> next =
      MergeReplacement(current, mapped, tc.started, tc.spec_changed);
  ASSERT_TRUE(next.has_value());
  // What is the job's own, not the definition's, stays.
  EXPECT_EQ(next->job_id, current.job_id);
  EXPECT_EQ(next->state, current.state);
  EXPECT_EQ(next->etag, current.etag);
  tc.expect(current, mapped, *next);
}

INSTANTIATE_TEST_SUITE_P(
    Rules, MergeReplacementTest,
    ::testing::Values(
        MergeCase{.name = "QueuedTakesTheWholeDefinition",
                  .started = false,
                  .spec_changed = true,
                  .update = [](TFJob& tfjob) { SetWorkers(tfjob, 4); },
                  .expect =
                      [](const model::Job&, const model::Job& mapped, const model::Job& next) {
                        EXPECT_EQ(next.training_input, mapped.training_input);
                        EXPECT_EQ(next.training_input->worker_count, 4);
                        EXPECT_EQ(next.extras->worker, mapped.extras->worker);
                      }},
        MergeCase{
            .name = "StartedKeepsTheClusterAndMovesTheRunPolicy",
            .started = true,
            .spec_changed = true,
            .update =
                [](TFJob& tfjob) {
                  SetWorkers(tfjob, 4);
                  tfjob.run_policy.active_deadline_seconds = 600;
                  tfjob.run_policy.backoff_limit = 7;
                },
            .expect =
                [](const model::Job& current, const model::Job& mapped, const model::Job& next) {
                  EXPECT_EQ(next.training_input->worker_count,
                            current.training_input->worker_count);
                  EXPECT_EQ(next.extras->master, current.extras->master);
                  EXPECT_EQ(next.extras->worker, current.extras->worker);
                  EXPECT_EQ(next.extras->parameter_server, current.extras->parameter_server);
                  EXPECT_EQ(MaxRunningTime(next), MaxRunningTime(mapped));
                  EXPECT_TRUE(MaxRunningTime(next).has_value());
                  EXPECT_EQ(next.extras->backoff_limit, 7);
                  EXPECT_EQ(next.extras->kube->document, mapped.extras->kube->document);
                }},
        MergeCase{.name = "LabelsMoveBeforeAndAfterStart",
                  .started = true,
                  .spec_changed = false,
                  .update =
                      [](TFJob& tfjob) {
                        tfjob.metadata.labels = {{"team", "vision"}};
                      },
                  .expect =
                      [](const model::Job&, const model::Job&, const model::Job& next) {
                        EXPECT_EQ(next.labels, (model::Labels{{"team", "vision"}}));
                      }},
        MergeCase{
            .name = "ASpecChangeBumpsTheGeneration",
            .started = false,
            .spec_changed = true,
            .stored = [](model::Job& j) { j.extras->kube->generation = 3; },
            .expect = [](const model::Job&, const model::Job&,
                         const model::Job& next) { EXPECT_EQ(next.extras->kube->generation, 4); }},
        MergeCase{
            .name = "AMetadataChangeKeepsTheGeneration",
            .started = true,
            .spec_changed = false,
            .stored = [](model::Job& j) { j.extras->kube->generation = 3; },
            .expect = [](const model::Job&, const model::Job&,
                         const model::Job& next) { EXPECT_EQ(next.extras->kube->generation, 3); }},
        MergeCase{.name = "UnsuspendingMarksTheJobResumed",
                  .started = true,
                  .spec_changed = true,
                  .stored = [](model::Job& j) { j.extras->suspended = true; },
                  .expect =
                      [](const model::Job&, const model::Job&, const model::Job& next) {
                        EXPECT_FALSE(next.extras->suspended);
                        EXPECT_TRUE(next.extras->resumed);
                      }},
        MergeCase{.name = "ResumedStaysResumed",
                  .started = true,
                  .spec_changed = true,
                  .stored = [](model::Job& j) { j.extras->resumed = true; },
                  .update = [](TFJob& tfjob) { tfjob.run_policy.suspend = true; },
                  .expect =
                      [](const model::Job&, const model::Job&, const model::Job& next) {
                        EXPECT_TRUE(next.extras->suspended);
                        EXPECT_TRUE(next.extras->resumed);
                      }},
        MergeCase{.name = "NeverSuspendedIsNotResumed",
                  .started = false,
                  .spec_changed = false,
                  .expect = [](const model::Job&, const model::Job&,
                               const model::Job& next) { EXPECT_FALSE(next.extras->resumed); }},
        MergeCase{
            .name = "ADeletionMarkStays",
            .started = true,
            .spec_changed = false,
            .stored =
                [](model::Job& j) {
                  j.extras->kube->deletion_time = WallTime(std::chrono::seconds(50));
                },
            .expect =
                [](const model::Job&, const model::Job&, const model::Job& next) {
                  EXPECT_EQ(next.extras->kube->deletion_time, WallTime(std::chrono::seconds(50)));
                }}),
    [](const auto& tc) { return tc.param.name; });

TEST(MergeReplacementUidTest, AnotherObjectOfTheSameNameIsNotReplaced) {
  const model::Job current = MappedJob(testing::ValidTFJob(), "uid-2");  // created anew meanwhile
  const model::Job mapped = MappedJob(testing::ValidTFJob(), "uid-1");
  EXPECT_FALSE(MergeReplacement(current, mapped, false, false).has_value());
  model::Job plain = current;
  plain.extras.reset();
  EXPECT_FALSE(MergeReplacement(plain, mapped, false, false).has_value());
}

TEST(MarkDeletedTest, MarksOnceAndOnlyKubernetesObjects) {
  const WallTime first(std::chrono::seconds(10));
  const WallTime later(std::chrono::seconds(20));
  const model::Job job = MappedJob(testing::ValidTFJob());

  const std::optional<model::Job> marked = MarkDeleted(job, first);
  ASSERT_TRUE(marked.has_value());
  EXPECT_EQ(marked->extras->kube->deletion_time, first);
  model::Job unmarked = *marked;
  unmarked.extras->kube->deletion_time.reset();
  EXPECT_EQ(unmarked, job);  // nothing else changes

  EXPECT_FALSE(MarkDeleted(*marked, later).has_value());  // the first mark stays
  model::Job plain = job;
  plain.extras.reset();
  EXPECT_FALSE(MarkDeleted(plain, first).has_value());
}

}  // namespace
}  // namespace trainyard::kube
