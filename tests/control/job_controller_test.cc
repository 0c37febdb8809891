#include "control/job_controller.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "control/test_jobs.h"

namespace trainyard::control::testing {
namespace {

using model::JobState;

std::vector<std::string> Fields(const Status& status) {
  std::vector<std::string> fields;
  for (const FieldViolation& violation : status.violations()) {
    fields.push_back(violation.field);
  }
  return fields;
}

bool Contains(const std::vector<std::string>& fields, const std::string& field) {
  return std::find(fields.begin(), fields.end(), field) != fields.end();
}

TEST_F(ControllerTest, SubmitStoresAQueuedJobWithCreateTimeAndEtag) {
  Result<model::Job> submitted = controller_->Submit("proj", ValidRuntimeJob("job_1"));
  ASSERT_TRUE(submitted.ok()) << submitted.status().ToString();

  EXPECT_EQ(submitted->job_id, "job_1");
  EXPECT_EQ(submitted->state, JobState::kQueued);
  EXPECT_EQ(submitted->create_time, clock_.Now());
  EXPECT_EQ(submitted->etag.size(), 12U);
  EXPECT_TRUE(submitted->etag.ends_with('='));
  EXPECT_EQ(submitted->training_input, ValidRuntimeJob("job_1").training_input);
  EXPECT_EQ(*controller_->Get("proj", "job_1"), *submitted);
}

TEST_F(ControllerTest, SubmitIgnoresOutputOnlyFields) {
  model::Job job = ValidRuntimeJob("job_1");
  job.state = JobState::kSucceeded;
  job.create_time = WallTime(std::chrono::seconds(5));
  job.start_time = WallTime(std::chrono::seconds(6));
  job.end_time = WallTime(std::chrono::seconds(7));
  job.error_message = "made up";
  job.etag = "abc";
  job.training_output.emplace().completed_trial_count = 3;
  job.job_position = 9;

  Result<model::Job> submitted = controller_->Submit("proj", job);
  ASSERT_TRUE(submitted.ok()) << submitted.status().ToString();
  EXPECT_EQ(submitted->state, JobState::kQueued);
  EXPECT_EQ(submitted->create_time, clock_.Now());
  EXPECT_FALSE(submitted->start_time.has_value());
  EXPECT_FALSE(submitted->end_time.has_value());
  EXPECT_EQ(submitted->error_message, "");
  EXPECT_NE(submitted->etag, "abc");
  EXPECT_FALSE(submitted->training_output.has_value());
  EXPECT_EQ(submitted->job_position, 0);
}

TEST_F(ControllerTest, SubmitReportsEveryViolationAndStoresNothing) {
  model::Job job = ValidRuntimeJob("1_bad_id");
  job.training_input->region = "mars-central1";
  job.labels = {{"Bad Key", "x"}};

  Result<model::Job> submitted = controller_->Submit("proj", job);
  ASSERT_FALSE(submitted.ok());
  EXPECT_EQ(submitted.status().code(), Code::kInvalidArgument);
  const std::vector<std::string> fields = Fields(submitted.status());
  EXPECT_TRUE(Contains(fields, "jobId")) << submitted.status().ToString();
  EXPECT_TRUE(Contains(fields, "labels")) << submitted.status().ToString();
  EXPECT_TRUE(Contains(fields, "trainingInput.region")) << submitted.status().ToString();
  EXPECT_TRUE(controller_->List("proj", {})->jobs.empty());
}

TEST_F(ControllerTest, SubmitOfATakenIdIsAlreadyExists) {
  SubmitValid("job_1");
  Result<model::Job> again = controller_->Submit("proj", ValidRuntimeJob("job_1"));
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), Code::kAlreadyExists);
  EXPECT_EQ(again.status().message(),
            "Field: job.job_id Error: A job with this id already exists.");
}

TEST_F(ControllerTest, GetOfUnknownJobIsNotFound) {
  Result<model::Job> got = controller_->Get("proj", "nope");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), Code::kNotFound);
  EXPECT_EQ(got.status().message(), "Field: name Error: The specified job was not found.");
}

struct HostileName {
  std::string name;
  std::string project;
  std::string job_id;
};

class HostileNameTest : public ControllerTest, public ::testing::WithParamInterface<HostileName> {};

TEST_P(HostileNameTest, EveryMethodRejectsItBeforeTouchingTheStore) {
  const HostileName& c = GetParam();
  const bool bad_project = c.job_id == "job_1";
  const std::string name_field = "name";

  Result<model::Job> submitted = controller_->Submit(c.project, ValidRuntimeJob(c.job_id));
  ASSERT_FALSE(submitted.ok());
  EXPECT_EQ(submitted.status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(Contains(Fields(submitted.status()), bad_project ? "parent" : "jobId"))
      << submitted.status().ToString();

  const Status get = controller_->Get(c.project, c.job_id).status();
  const Status cancel = controller_->Cancel(c.project, c.job_id);
  const Status patch = controller_->Patch(c.project, c.job_id, {}, {"labels"}).status();
  for (const Status& status : {get, cancel, patch}) {
    EXPECT_EQ(status.code(), Code::kInvalidArgument) << status.ToString();
    EXPECT_EQ(Fields(status), std::vector<std::string>{name_field}) << status.ToString();
  }
  if (bad_project) {
    const Status list = controller_->List(c.project, {}).status();
    EXPECT_EQ(Fields(list), std::vector<std::string>{"parent"}) << list.ToString();
  }
}

INSTANTIATE_TEST_SUITE_P(
    Names, HostileNameTest,
    ::testing::Values(HostileName{"ProjectTraversal", "../etc", "job_1"},
                      HostileName{"ProjectSlash", "a/jobs/b", "job_1"},
                      HostileName{"ProjectNul", std::string("p\0q", 3), "job_1"},
                      HostileName{"ProjectTooLong", std::string(101, 'p'), "job_1"},
                      HostileName{"ProjectEmpty", "", "job_1"},
                      HostileName{"JobTraversal", "proj", "../job"},
                      HostileName{"JobSlash", "proj", "a/b"},
                      HostileName{"JobNul", "proj", std::string("job\0x", 5)},
                      HostileName{"JobTooLong", "proj", std::string(129, 'j')},
                      HostileName{"JobDash", "proj", "job-1"}),
    [](const auto& tc) { return tc.param.name; });

// Puts the stored job into `state` directly, as the reconcile loop of a later issue would.
void ForceState(store::JobStore& store, const model::Job& job, JobState state) {
  model::Job changed = job;
  changed.state = state;
  changed.etag = "AAAAAAAAAAA=";
  if (model::IsTerminal(state)) {
    changed.end_time = job.create_time;
  }
  ASSERT_TRUE(store.Update("proj", changed, job.etag).ok());
}

struct CancelCase {
  std::string name;
  JobState from;
  Code code;
  JobState to;
  bool ends;  // endTime and errorMessage set by the cancel
};

class CancelTest : public ControllerTest, public ::testing::WithParamInterface<CancelCase> {};

TEST_P(CancelTest, MovesTheJobAsTheLifecycleSays) {
  const CancelCase& c = GetParam();
  const model::Job submitted = SubmitValid("job_1");
  if (c.from != JobState::kQueued) {
    ForceState(*store_, submitted, c.from);
  }
  const model::Job before = *controller_->Get("proj", "job_1");

  const Status status = controller_->Cancel("proj", "job_1");
  EXPECT_EQ(status.code(), c.code) << status.ToString();
  const model::Job after = *controller_->Get("proj", "job_1");
  EXPECT_EQ(after.state, c.to);
  if (c.code == Code::kFailedPrecondition) {
    EXPECT_EQ(status.message(), "Cannot cancel an already completed job.");
  }
  if (c.ends) {
    EXPECT_EQ(after.end_time, clock_.Now());
    EXPECT_EQ(after.error_message, "Job was cancelled by the user.");
  }
  if (c.from == c.to) {
    EXPECT_EQ(after, before);  // untouched, etag included
  } else {
    EXPECT_NE(after.etag, before.etag);
    EXPECT_EQ(after.end_time.has_value(), c.ends);
  }
}

// docs/reference/ai-platform-training.md §2.7
const std::vector<CancelCase> kCancelCases = {
    CancelCase{"Queued", JobState::kQueued, Code::kOk, JobState::kCancelled, true},
    CancelCase{"Preparing", JobState::kPreparing, Code::kOk, JobState::kCancelled, true},
    CancelCase{"Running", JobState::kRunning, Code::kOk, JobState::kCancelling, false},
    CancelCase{"Cancelling", JobState::kCancelling, Code::kOk, JobState::kCancelling, false},
    CancelCase{"Succeeded", JobState::kSucceeded, Code::kFailedPrecondition, JobState::kSucceeded,
               false},
    CancelCase{"Failed", JobState::kFailed, Code::kFailedPrecondition, JobState::kFailed, false},
    CancelCase{"Cancelled", JobState::kCancelled, Code::kFailedPrecondition, JobState::kCancelled,
               false},
};

INSTANTIATE_TEST_SUITE_P(Lifecycle, CancelTest, ::testing::ValuesIn(kCancelCases),
                         [](const auto& tc) { return tc.param.name; });

// MarkAndCancel (a Kubernetes delete): the mark is written whatever the state, then the cancel as
// Cancel makes it, except that an ended job is no error; the answer is the job as stored after
// both, with the revision it is stored at.
class MarkAndCancelTest : public ControllerTest,
                          public ::testing::WithParamInterface<CancelCase> {};

TEST_P(MarkAndCancelTest, MarksThenCancelsAndAnswersTheStoredJob) {
  const CancelCase& c = GetParam();
  const model::Job submitted = SubmitValid("job_1");
  if (c.from != JobState::kQueued) {
    ForceState(*store_, submitted, c.from);
  }
  SubmitValid("job_2");  // a later write: the store's newest revision is not job_1's

  Result<store::RevisionedJob> answer = controller_->MarkAndCancel(
      "proj", "job_1", [](const model::Job& current) -> Result<std::optional<model::Job>> {
        model::Job next = current;
        next.labels = {{"deleted", "yes"}};
        return std::optional(std::move(next));
      });

  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  const Result<store::RevisionedJob> stored = store_->GetRevisioned("proj", "job_1");
  EXPECT_EQ(answer->job, stored->job);
  EXPECT_EQ(answer->revision, stored->revision);
  EXPECT_EQ(answer->revision, *store_->Revision());  // the last write is job_1's
  EXPECT_EQ(stored->job.state, c.to);
  EXPECT_EQ(stored->job.labels, (model::Labels{{"deleted", "yes"}}));
  EXPECT_EQ(stored->job.end_time.has_value(), c.ends || model::IsTerminal(c.from));
}

INSTANTIATE_TEST_SUITE_P(Lifecycle, MarkAndCancelTest, ::testing::ValuesIn(kCancelCases),
                         [](const auto& tc) { return tc.param.name; });

TEST_F(ControllerTest, MarkAndCancelOfUnknownJobIsNotFound) {
  Result<store::RevisionedJob> answer =
      controller_->MarkAndCancel("proj", "nope", [](const model::Job& current) {
        return Result<std::optional<model::Job>>(std::optional(current));
      });
  EXPECT_EQ(answer.status().code(), Code::kNotFound);
}

TEST_F(ControllerTest, CancelOfUnknownJobIsNotFound) {
  EXPECT_EQ(controller_->Cancel("proj", "nope").code(), Code::kNotFound);
}

TEST_F(ControllerTest, PatchReplacesTheLabelsWithANewEtag) {
  const model::Job submitted = SubmitValid("job_1", {{"a", "1"}, {"b", "2"}});
  model::Job patch;
  patch.labels = {{"c", "3"}};

  Result<model::Job> patched = controller_->Patch("proj", "job_1", patch, {"labels"});
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ(patched->labels, patch.labels);
  EXPECT_NE(patched->etag, submitted.etag);
  EXPECT_EQ(patched->training_input, submitted.training_input);
  EXPECT_EQ(patched->state, JobState::kQueued);
  EXPECT_EQ(*controller_->Get("proj", "job_1"), *patched);
}

TEST_F(ControllerTest, PatchClearsTheLabelsWithAnEmptyMap) {
  SubmitValid("job_1", {{"a", "1"}});
  Result<model::Job> patched = controller_->Patch("proj", "job_1", model::Job{}, {"labels"});
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_TRUE(controller_->Get("proj", "job_1")->labels.empty());
}

TEST_F(ControllerTest, PatchWithTheSameLabelsKeepsTheEtag) {
  const model::Job submitted = SubmitValid("job_1", {{"a", "1"}});
  Result<model::Job> patched = controller_->Patch("proj", "job_1", submitted, {"labels"});
  ASSERT_TRUE(patched.ok());
  EXPECT_EQ(patched->etag, submitted.etag);
}

TEST_F(ControllerTest, PatchRejectsInvalidLabelsAndKeepsTheOldOnes) {
  SubmitValid("job_1", {{"a", "1"}});
  model::Job patch;
  patch.labels = {{"Bad Key", "x"}};

  Result<model::Job> patched = controller_->Patch("proj", "job_1", patch, {"labels"});
  ASSERT_FALSE(patched.ok());
  EXPECT_EQ(patched.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Fields(patched.status()), std::vector<std::string>{"labels"});
  EXPECT_EQ(controller_->Get("proj", "job_1")->labels, (model::Labels{{"a", "1"}}));
}

TEST_F(ControllerTest, PatchWithTheCurrentEtagApplies) {
  const model::Job submitted = SubmitValid("job_1");
  model::Job patch;
  patch.labels = {{"c", "3"}};
  patch.etag = submitted.etag;

  Result<model::Job> patched = controller_->Patch("proj", "job_1", patch, {"labels", "etag"});
  ASSERT_TRUE(patched.ok()) << patched.status().ToString();
  EXPECT_EQ(patched->labels, patch.labels);
}

TEST_F(ControllerTest, PatchWithAStaleEtagIsAbortedAndChangesNothing) {
  const model::Job submitted = SubmitValid("job_1");
  model::Job patch;
  patch.labels = {{"c", "3"}};
  patch.etag = submitted.etag;
  ASSERT_TRUE(controller_->Patch("proj", "job_1", patch, {"labels", "etag"}).ok());

  patch.labels = {{"d", "4"}};  // still the first etag
  Result<model::Job> stale = controller_->Patch("proj", "job_1", patch, {"labels", "etag"});
  ASSERT_FALSE(stale.ok());
  EXPECT_EQ(stale.status().code(), Code::kAborted);
  EXPECT_EQ(controller_->Get("proj", "job_1")->labels, (model::Labels{{"c", "3"}}));
}

struct MaskCase {
  std::string name;
  std::vector<std::string> mask;
};

class BadMaskTest : public ControllerTest, public ::testing::WithParamInterface<MaskCase> {};

TEST_P(BadMaskTest, IsInvalidArgumentOnUpdateMask) {
  const model::Job submitted = SubmitValid("job_1", {{"a", "1"}});
  model::Job patch = submitted;
  patch.labels = {{"b", "2"}};
  patch.state = JobState::kSucceeded;

  Result<model::Job> patched = controller_->Patch("proj", "job_1", patch, GetParam().mask);
  ASSERT_FALSE(patched.ok());
  EXPECT_EQ(patched.status().code(), Code::kInvalidArgument);
  EXPECT_TRUE(Contains(Fields(patched.status()), "updateMask")) << patched.status().ToString();
  EXPECT_EQ(*controller_->Get("proj", "job_1"), submitted);
}

INSTANTIATE_TEST_SUITE_P(Masks, BadMaskTest,
                         ::testing::Values(MaskCase{"Empty", {}}, MaskCase{"State", {"state"}},
                                           MaskCase{"LabelsAndState", {"labels", "state"}},
                                           MaskCase{"SnakeCase", {"training_input"}},
                                           MaskCase{"OneLabel", {"labels.a"}}),
                         [](const auto& tc) { return tc.param.name; });

// Forwards to a real store; just before the first `Update`, another writer changes the job.
class RacingStore final : public store::JobStore {
 public:
  explicit RacingStore(store::JobStore& inner) : inner_(inner) {}

  std::function<void()> before_first_update;
  int updates = 0;

  Result<store::CreatedJob> Create(std::string_view project, const model::Job& job) override {
    return inner_.Create(project, job);
  }
  Result<model::Job> Get(std::string_view project, std::string_view job_id) const override {
    return inner_.Get(project, job_id);
  }
  Result<store::RevisionedJob> GetRevisioned(std::string_view project,
                                             std::string_view job_id) const override {
    return inner_.GetRevisioned(project, job_id);
  }
  Result<std::string> GetJson(std::string_view project, std::string_view job_id) const override {
    return inner_.GetJson(project, job_id);
  }
  Result<std::int64_t> Update(std::string_view project, const model::Job& job,
                              std::string_view expected_etag) override {
    if (updates++ == 0 && before_first_update) {
      before_first_update();
    }
    return inner_.Update(project, job, expected_etag);
  }
  Result<store::JobPage> List(std::string_view project,
                              const std::optional<store::ListCursor>& after,
                              int limit) const override {
    return inner_.List(project, after, limit);
  }
  Result<store::JsonPage> ListJson(std::string_view project,
                                   const std::optional<store::ListCursor>& after,
                                   int limit) const override {
    return inner_.ListJson(project, after, limit);
  }
  Result<std::vector<std::pair<std::string, model::Job>>> ListUnfinished() const override {
    return inner_.ListUnfinished();
  }
  Result<store::RevisionedJob> GetKubeObject(std::string_view project, std::string_view kind,
                                             std::string_view name) const override {
    return inner_.GetKubeObject(project, kind, name);
  }
  Result<std::vector<store::RevisionedJob>> ListKubeObjects(std::string_view project,
                                                            std::string_view kind,
                                                            std::int64_t after_revision,
                                                            bool live_only,
                                                            int limit) const override {
    return inner_.ListKubeObjects(project, kind, after_revision, live_only, limit);
  }
  Result<std::int64_t> Revision() const override { return inner_.Revision(); }
  Result<std::vector<std::pair<JobState, std::int64_t>>> CountByState() const override {
    return inner_.CountByState();
  }

  Result<std::vector<std::string>> Projects() const override { return inner_.Projects(); }

 private:
  store::JobStore& inner_;
};

TEST_F(ControllerTest, ACancelRacingAnotherWriterRetriesAndLosesNeitherChange) {
  SubmitValid("job_1", {{"a", "1"}});
  RacingStore racing(*store_);
  racing.before_first_update = [&] {
    model::Job other = *store_->Get("proj", "job_1");
    const std::string etag = other.etag;
    other.labels = {{"b", "2"}};
    other.etag = "AAAAAAAAAAA=";
    ASSERT_TRUE(store_->Update("proj", other, etag).ok());
  };
  JobController controller(racing, catalog::Catalog::Builtin(), clock_);

  ASSERT_TRUE(controller.Cancel("proj", "job_1").ok());

  EXPECT_EQ(racing.updates, 2);
  const model::Job after = *store_->Get("proj", "job_1");
  EXPECT_EQ(after.state, JobState::kCancelled);
  EXPECT_EQ(after.labels, (model::Labels{{"b", "2"}}));
}

TEST_F(ControllerTest, PatchOfUnknownJobIsNotFound) {
  EXPECT_EQ(controller_->Patch("proj", "nope", {}, {"labels"}).status().code(), Code::kNotFound);
}

// Update: the change's job must pass the rules; a dry run or no change writes nothing.
struct UpdateCase {
  std::string name;
  std::string region;  // the job the change makes: this region and a label {"v": "2"}
  bool same_labels;    // ... or, when set, the stored job unchanged
  bool dry_run;
  Code want;
  bool written;
};

class UpdateTest : public ControllerTest, public ::testing::WithParamInterface<UpdateCase> {};

TEST_P(UpdateTest, ValidatesAndWritesOnlyARealChange) {
  const UpdateCase& tc = GetParam();
  const model::Job before = SubmitValid("job_1", {{"v", "1"}});
  SubmitValid("job_2");  // a later write: the store's newest revision is not job_1's
  const std::int64_t revision_before = store_->GetRevisioned("proj", "job_1")->revision;
  Result<store::RevisionedJob> updated = controller_->Update(
      "proj", "job_1",
      [&](const model::Job& current) -> Result<std::optional<model::Job>> {
        model::Job next = current;
        if (!tc.same_labels) {
          next.labels = {{"v", "2"}};
        }
        next.training_input->region = tc.region;
        return std::optional<model::Job>(std::move(next));
      },
      tc.dry_run);
  EXPECT_EQ(updated.status().code(), tc.want) << updated.status().ToString();
  const model::Job after = *controller_->Get("proj", "job_1");
  EXPECT_EQ(after.etag != before.etag, tc.written);
  EXPECT_EQ(after.labels, (tc.written ? model::Labels{{"v", "2"}} : model::Labels{{"v", "1"}}));
  if (updated.ok()) {
    // The answer is the job as stored, with the revision it is stored at: the write's (the
    // store's newest), or the one it had when nothing was written.
    EXPECT_EQ(updated->job, after);
    EXPECT_EQ(updated->project, "proj");
    EXPECT_EQ(updated->revision, store_->GetRevisioned("proj", "job_1")->revision);
    EXPECT_EQ(updated->revision > revision_before, tc.written);
    EXPECT_EQ(updated->revision == *store_->Revision(), tc.written);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Changes, UpdateTest,
    ::testing::Values(
        UpdateCase{"Valid", "us-central1", false, false, Code::kOk, true},
        UpdateCase{"Invalid", "mars-central1", false, false, Code::kInvalidArgument, false},
        UpdateCase{"DryRun", "us-central1", false, true, Code::kOk, false},
        UpdateCase{"InvalidDryRun", "mars-central1", false, true, Code::kInvalidArgument, false},
        UpdateCase{"Unchanged", "us-central1", true, false, Code::kOk, false}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(ControllerTest, UpdatePassesTheChangesOwnRefusalOn) {
  SubmitValid("job_1");
  Result<store::RevisionedJob> updated = controller_->Update(
      "proj", "job_1",
      [](const model::Job&) -> Result<std::optional<model::Job>> {
        return Status::NotFound("gone");
      },
      false);
  EXPECT_EQ(updated.status().code(), Code::kNotFound);
}

}  // namespace
}  // namespace trainyard::control::testing
