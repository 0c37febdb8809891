// JobController::SubmitWithId: a job whose id the server picks (the TFJob name rule, Vertex's
// numbers), tried candidate by candidate in the controller; its dry run (a TFJob's ?dryRun=All).
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "control/job_controller.h"
#include "control/test_jobs.h"
#include "model/job_id_scheme.h"

namespace trainyard::control::testing {
namespace {

// "job", "job_2", "job_3", … up to `attempts` candidates.
model::JobIdScheme Numbered(std::string base, int attempts) {
  return model::JobIdScheme{.candidate =
                                [base](int attempt, std::uint64_t /*draw*/) {
                                  return attempt == 0 ? base
                                                      : base + "_" + std::to_string(attempt + 1);
                                },
                            .max_attempts = attempts};
}

// A valid job that is the Kubernetes object TFJob `name` (one live object per name).
model::Job KubeJob(const std::string& name, const std::string& uid) {
  model::Job job = ValidRuntimeJob("unset");
  job.extras.emplace().kube = model::KubeObject{.kind = "TFJob",
                                                .api_version = "kubeflow.org/v1",
                                                .name = name,
                                                .namespace_name = "proj",
                                                .uid = uid,
                                                .document = "{}"};
  return job;
}

std::int64_t StoreRevision(const store::JobStore& store) {
  Result<std::int64_t> revision = store.Revision();
  EXPECT_TRUE(revision.ok()) << revision.status().ToString();
  return revision.ok() ? *revision : -1;
}

struct FreeIdCase {
  std::string name;
  std::vector<std::string> taken;  // ids stored before
  int attempts;
  std::string want;  // the id the job gets; "" when the submit is refused (ABORTED)
};

class FreeIdTest : public ControllerTest, public ::testing::WithParamInterface<FreeIdCase> {};

TEST_P(FreeIdTest, TakesTheFirstFreeCandidate) {
  const FreeIdCase& tc = GetParam();
  for (const std::string& id : tc.taken) {
    SubmitValid(id);
  }
  Result<store::RevisionedJob> submitted =
      controller_->SubmitWithId("proj", Numbered("job", tc.attempts), ValidRuntimeJob("ignored"));
  if (tc.want.empty()) {
    EXPECT_EQ(submitted.status().code(), Code::kAborted) << submitted.status().ToString();
    EXPECT_EQ(controller_->List("proj", {})->jobs.size(), tc.taken.size());
    return;
  }
  ASSERT_TRUE(submitted.ok()) << submitted.status().ToString();
  EXPECT_EQ(submitted->job.job_id, tc.want);
  EXPECT_EQ(submitted->project, "proj");
  EXPECT_EQ(submitted->job.state, model::JobState::kQueued);
  // The answer is the job as stored, with the revision of its write.
  EXPECT_EQ(*controller_->Get("proj", tc.want), submitted->job);
  EXPECT_EQ(submitted->revision, StoreRevision(*store_));
}

// A dry run makes the same checks and finds the same id as the submit, and writes nothing.
TEST_P(FreeIdTest, ADryRunFindsTheSameIdAndWritesNothing) {
  const FreeIdCase& tc = GetParam();
  for (const std::string& id : tc.taken) {
    SubmitValid(id);
  }
  const std::int64_t before = StoreRevision(*store_);
  Result<store::RevisionedJob> checked = controller_->SubmitWithId(
      "proj", Numbered("job", tc.attempts), ValidRuntimeJob("ignored"), /*dry_run=*/true);
  EXPECT_EQ(StoreRevision(*store_), before);
  EXPECT_EQ(controller_->List("proj", {})->jobs.size(), tc.taken.size());
  if (tc.want.empty()) {
    EXPECT_EQ(checked.status().code(), Code::kAborted) << checked.status().ToString();
    return;
  }
  ASSERT_TRUE(checked.ok()) << checked.status().ToString();
  EXPECT_EQ(checked->job.job_id, tc.want);
  EXPECT_EQ(checked->job.state, model::JobState::kQueued);  // as it would be stored
  EXPECT_EQ(checked->revision, 0);                          // no write, no revision
}

INSTANTIATE_TEST_SUITE_P(Schemes, FreeIdTest,
                         ::testing::Values(FreeIdCase{"NoneTaken", {}, 3, "job"},
                                           FreeIdCase{"FirstTaken", {"job"}, 3, "job_2"},
                                           FreeIdCase{"TwoTaken", {"job", "job_2"}, 3, "job_3"},
                                           FreeIdCase{"AGapIsUsed", {"job", "job_3"}, 3, "job_2"},
                                           FreeIdCase{
                                               "EveryCandidateTaken", {"job", "job_2"}, 2, ""},
                                           FreeIdCase{"NoCandidates", {}, 0, ""}),
                         [](const auto& tc) { return tc.param.name; });

TEST_F(ControllerTest, SubmitWithIdDrawsAFreshRandomNumberPerAttempt) {
  std::vector<std::uint64_t> draws;
  const model::JobIdScheme scheme{.candidate =
                                      [&draws](int /*attempt*/, std::uint64_t draw) {
                                        draws.push_back(draw);
                                        return draws.size() == 1 ? std::string("taken")
                                                                 : std::string("free");
                                      },
                                  .max_attempts = 2,
                                  .random = true};
  SubmitValid("taken");
  Result<store::RevisionedJob> submitted =
      controller_->SubmitWithId("proj", scheme, ValidRuntimeJob("ignored"));
  ASSERT_TRUE(submitted.ok()) << submitted.status().ToString();
  EXPECT_EQ(submitted->job.job_id, "free");
  ASSERT_EQ(draws.size(), 2U);
  EXPECT_NE(draws[0], draws[1]);  // two 64-bit draws meet once in 2^64
}

TEST_F(ControllerTest, SubmitWithIdStopsWhenSomethingBesidesTheIdIsTaken) {
  ASSERT_TRUE(controller_->SubmitWithId("proj", Numbered("mnist", 5), KubeJob("mnist", "u1")).ok());
  const std::int64_t before = StoreRevision(*store_);

  // A second live TFJob "mnist": its id would be free ("mnist_2"), its name is not.
  Result<store::RevisionedJob> again =
      controller_->SubmitWithId("proj", Numbered("mnist", 5), KubeJob("mnist", "u2"));
  EXPECT_EQ(again.status().code(), Code::kAlreadyExists) << again.status().ToString();
  // A dry run finds the name taken as the write does.
  Result<store::RevisionedJob> checked = controller_->SubmitWithId(
      "proj", Numbered("mnist", 5), KubeJob("mnist", "u3"), /*dry_run=*/true);
  EXPECT_EQ(checked.status().code(), Code::kAlreadyExists) << checked.status().ToString();
  EXPECT_EQ(StoreRevision(*store_), before);
  EXPECT_EQ(controller_->List("proj", {})->jobs.size(), 1U);
}

TEST_F(ControllerTest, SubmitWithIdChecksTheJobOnceAndStoresNothingInvalid) {
  int candidates = 0;
  const model::JobIdScheme scheme{.candidate =
                                      [&candidates](int /*attempt*/, std::uint64_t /*draw*/) {
                                        ++candidates;
                                        return std::string("job");
                                      },
                                  .max_attempts = 5};
  model::Job job = ValidRuntimeJob("ignored");
  job.training_input->region = "mars-central1";
  for (const bool dry_run : {false, true}) {
    candidates = 0;
    Result<store::RevisionedJob> submitted =
        controller_->SubmitWithId("proj", scheme, job, dry_run);
    EXPECT_EQ(submitted.status().code(), Code::kInvalidArgument) << submitted.status().ToString();
    EXPECT_EQ(candidates, 1);
    EXPECT_TRUE(controller_->List("proj", {})->jobs.empty());
  }
}

}  // namespace
}  // namespace trainyard::control::testing
