// kube::ApplyUpdate (kube/tfjob_update.h): which fields of a TFJob may change before and after it
// has started, whether the spec changed (the generation moves on), and whether the priority class
// is named anew; when a job has started (HasStarted) and a PUT's resourceVersion precondition
// (CheckResourceVersion).
#include "kube/tfjob_update.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kube/tfjob_decode.h"
#include "kube/tfjob_fixtures.h"
#include "model/job.h"

namespace trainyard::kube {
namespace {

ReplicaSpec& WorkerOf(TFJob& job) {
  for (ReplicaSpec& spec : job.replica_specs) {
    if (spec.type == "Worker") {
      return spec;
    }
  }
  ADD_FAILURE() << "no Worker";
  return job.replica_specs.front();
}

struct ApplyUpdateCase {
  std::string name;
  bool started;
  std::function<void(TFJob&)> change;
  // The answer: "" for a success, else the field of the 422's first cause.
  std::string refused_field;
  bool spec_changed = false;
  bool priority_class_changed = false;
};

class ApplyUpdateTest : public ::testing::TestWithParam<ApplyUpdateCase> {};

// A TFJob as it is stored: as a GET shows it, with the operator's defaults filled in.
TFJob Stored(const TFJob& job) {
  KubeResult<DecodedTFJob> decoded = DecodeTFJob(EncodeTFJob(job, nullptr));
  EXPECT_TRUE(decoded.ok());
  return decoded.ok() ? decoded->job : job;
}

TEST_P(ApplyUpdateTest, ChangesWhatMayChange) {
  const ApplyUpdateCase& tc = GetParam();
  const TFJob old = Stored(testing::ValidTFJob());
  TFJob next = old;
  tc.change(next);
  const KubeResult<TFJobUpdate> update = ApplyUpdate(old, next, tc.started);
  if (!tc.refused_field.empty()) {
    ASSERT_FALSE(update.ok());
    EXPECT_EQ(update.error().code, 422);
    EXPECT_EQ(update.error().reason, "Invalid");
    ASSERT_FALSE(update.error().causes.empty());
    EXPECT_EQ(update.error().causes.front().field, tc.refused_field) << update.error().message;
    return;
  }
  ASSERT_TRUE(update.ok()) << update.error().message;
  EXPECT_EQ(update->spec_changed, tc.spec_changed);
  EXPECT_EQ(update->priority_class_changed, tc.priority_class_changed);
  // The client's metadata, without the fields the server sets (an update cannot set them).
  ObjectMeta expected = next.metadata;
  expected.uid.clear();
  expected.resource_version.clear();
  expected.generation = 0;
  expected.creation_timestamp.reset();
  expected.deletion_timestamp.reset();
  EXPECT_EQ(update->job.metadata, expected);
}

// A GET's output sent back (kubectl replace): what the server set is no change.
void AsAGetShowsIt(TFJob& job) {
  job.metadata.uid = "9b3e3c1e-0000-4000-8000-000000000001";
  job.metadata.resource_version = "17";
  job.metadata.generation = 2;
  job.metadata.creation_timestamp = WallTime(std::chrono::seconds(1'700'000'000));
  job.metadata.deletion_timestamp = WallTime(std::chrono::seconds(1'700'000'100));
}

INSTANTIATE_TEST_SUITE_P(
    Table, ApplyUpdateTest,
    ::testing::Values(
        ApplyUpdateCase{"NothingBeforeStart", false, [](TFJob&) {}, ""},
        ApplyUpdateCase{"NothingAfterStart", true, [](TFJob&) {}, ""},
        ApplyUpdateCase{"ServerFieldsBeforeStart", false, AsAGetShowsIt, ""},
        ApplyUpdateCase{"ServerFieldsAfterStart", true, AsAGetShowsIt, ""},
        ApplyUpdateCase{"LabelsAfterStart", true, [](TFJob& j) { j.metadata.labels["team"] = "a"; },
                        ""},
        ApplyUpdateCase{"ReplicasBeforeStart", false, [](TFJob& j) { WorkerOf(j).replicas = 3; },
                        "", true},
        ApplyUpdateCase{"ReplicasAfterStartRefused", true,
                        [](TFJob& j) { WorkerOf(j).replicas = 3; }, "spec"},
        ApplyUpdateCase{"ImageAfterStartRefused", true,
                        [](TFJob& j) { WorkerOf(j).template_.containers.front().image = "other"; },
                        "spec"},
        ApplyUpdateCase{"SuspendAfterStart", true, [](TFJob& j) { j.run_policy.suspend = true; },
                        "", true},
        ApplyUpdateCase{"DeadlineAfterStart", true,
                        [](TFJob& j) { j.run_policy.active_deadline_seconds = 60; }, "", true},
        ApplyUpdateCase{"BackoffLimitAfterStart", true,
                        [](TFJob& j) { j.run_policy.backoff_limit = 2; }, "", true},
        ApplyUpdateCase{"TtlAfterStart", true,
                        [](TFJob& j) { j.run_policy.ttl_seconds_after_finished = 5; }, "", true},
        ApplyUpdateCase{"PriorityClassNamed", false,
                        [](TFJob& j) {
                          j.run_policy.scheduling_policy =
                              SchedulingPolicy{.priority_class = "high"};
                        },
                        "", true, true},
        ApplyUpdateCase{"InvalidReplicasRefused", false,
                        [](TFJob& j) { WorkerOf(j).replicas = -1; },
                        "spec.tfReplicaSpecs[Worker].replicas"}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::kube

namespace trainyard::kube {
namespace {

// Server-side apply's object: the stored TFJob without what the server sets, the manifest over it.
TEST(ServerSideApplyBaseTest, SetsTheManifestsFieldsOverTheStoredObject) {
  const std::string stored =
      R"({"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"x","namespace":"p",)"
      R"("uid":"u","resourceVersion":"7","generation":2,"creationTimestamp":"2026-01-01T00:00:00Z",)"
      R"("labels":{"team":"a","kept":"yes"}},"spec":{"runPolicy":{"suspend":true}},)"
      R"("status":{"conditions":[]}})";
  const std::string base =
      R"({"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"x","namespace":"p",)"
      R"("labels":{"team":"a","kept":"yes"}},"spec":{"runPolicy":{"suspend":true}}})";
  const struct {
    std::string_view stored;
    std::string manifest;
    std::string want;
  } cases[] = {
      // the same manifest: the stored object back, so nothing is written
      {stored,
       R"({"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"x",)"
       R"("labels":{"team":"a"}},"spec":{"runPolicy":{"suspend":true}}})",
       base},
      // a changed field changes; one the manifest leaves out stays (no managedFields)
      {stored, R"({"metadata":{"labels":{"team":"b"}},"status":{"x":1}})",
       R"({"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"x","namespace":"p",)"
       R"("labels":{"team":"b","kept":"yes"}},"spec":{"runPolicy":{"suspend":true}}})"},
      // a resourceVersion the manifest names stays, to be checked
      {stored, R"({"metadata":{"resourceVersion":"3"}})",
       R"({"apiVersion":"kubeflow.org/v1","kind":"TFJob","metadata":{"name":"x","namespace":"p",)"
       R"("labels":{"team":"a","kept":"yes"},"resourceVersion":"3"},)"
       R"("spec":{"runPolicy":{"suspend":true}}})"},
      // absent: the manifest alone, without a status
      {"{}", R"({"kind":"TFJob","metadata":{"name":"y"},"status":{}})",
       R"({"kind":"TFJob","metadata":{"name":"y"}})"},
  };
  for (const auto& c : cases) {
    KubeResult<std::string> merged = ServerSideApplyBase(c.stored, c.manifest);
    ASSERT_TRUE(merged.ok()) << c.manifest;
    EXPECT_EQ(nlohmann::json::parse(*merged), nlohmann::json::parse(c.want)) << c.manifest;
  }
}

TEST(ServerSideApplyBaseTest, RefusesAManifestThatIsNotAJsonObject) {
  for (const std::string_view manifest : {"kind: TFJob", "[]", "", "\"x\""}) {
    KubeResult<std::string> merged = ServerSideApplyBase("{}", manifest);
    ASSERT_FALSE(merged.ok()) << manifest;
    EXPECT_EQ(merged.error().code, 400);
    EXPECT_EQ(merged.error().message,
              "the apply patch is not a JSON object: trainyard reads apply patches written as "
              "JSON (as kubectl sends them)");
  }
}

}  // namespace
}  // namespace trainyard::kube

namespace trainyard::kube {
namespace {

// A PUT's or patch's resourceVersion precondition: none named passes, else it must be the
// stored revision, as the API server's optimistic concurrency asks.
TEST(CheckResourceVersionTest, PassesOnlyNoneOrTheStoredRevision) {
  const struct {
    std::string_view given;
    std::int64_t stored;
    bool passes;
  } cases[] = {
      {"", 7, true},     // none named: the object as it is
      {"7", 7, true},    // the stored one
      {"6", 7, false},   // older: written since
      {"8", 7, false},   // newer than any write
      {"70", 7, false},  // a longer number
      {"x", 7, false},   // not a revision at all
      {"", 0, true},     // nothing written yet
      {"0", 0, true},
  };
  for (const auto& c : cases) {
    const Status status = CheckResourceVersion(c.given, c.stored);
    EXPECT_EQ(status.ok(), c.passes) << c.given << " against " << c.stored;
    if (!c.passes) {
      EXPECT_EQ(status.code(), Code::kAborted) << c.given;  // the API answers 409 Conflict
    }
  }
}

// Whether a TFJob has started, which decides what an update may change (ApplyUpdate).
TEST(HasStartedTest, OnceTheJobLeftTheQueueOrRan) {
  const WallTime then = WallTime() + std::chrono::hours(1);
  const struct {
    std::string_view name;
    model::JobState state;
    std::optional<WallTime> start_time;
    bool started;
  } cases[] = {
      {"Queued", model::JobState::kQueued, std::nullopt, false},
      // suspended (or preempted) and back in the queue: it ran, its cluster is fixed
      {"QueuedAgainAfterRunning", model::JobState::kQueued, then, true},
      {"Preparing", model::JobState::kPreparing, std::nullopt, true},
      {"Running", model::JobState::kRunning, then, true},
      {"Succeeded", model::JobState::kSucceeded, then, true},
      {"Cancelling", model::JobState::kCancelling, then, true},
      // cancelled from the queue: it never ran, but it has left the queue for good
      {"CancelledInTheQueue", model::JobState::kCancelled, std::nullopt, true},
  };
  for (const auto& c : cases) {
    model::Job job;
    job.state = c.state;
    job.start_time = c.start_time;
    EXPECT_EQ(HasStarted(job), c.started) << c.name;
  }
}

}  // namespace
}  // namespace trainyard::kube
