// The job controller: the only code that changes a job's state.
//
// It validates and stores new jobs, answers reads, lists with filters and paging, cancels and
// patches labels. Later issues add the reconcile loop that moves jobs through PREPARING and
// RUNNING. Thread-safe: every read-modify-write of a job holds one of a fixed set of mutexes
// (chosen by a hash of project and job id) and writes with the store's etag compare-and-swap,
// retrying on ABORTED, so a concurrent writer elsewhere (another controller on the same database)
// can delay an update but never lose one.
//
// Ids are checked before any lookup: a malformed project id is INVALID_ARGUMENT on "parent"
// (Submit, List) or "name" (the others); a malformed job id in Get/Cancel/Patch is
// INVALID_ARGUMENT on "name" rather than NOT_FOUND, since no such job can exist. Messages of
// NOT_FOUND and ALREADY_EXISTS use docs/reference/ai-platform-training.md §1.5's wording. Times the
// controller sets are whole microseconds (what Python clients such as gcloud can represent).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "catalog/catalog.h"
#include "control/list_filter.h"
#include "control/sharing_admin.h"
#include "model/job.h"
#include "model/job_id_scheme.h"
#include "sched/quota_check.h"
#include "store/job_store.h"
#include "validate/local_packages.h"

namespace trainyard::control {

struct ListJobsRequest {
  int page_size = 0;       // 0 = default (20); clamped to 100; negative: INVALID_ARGUMENT
  std::string page_token;  // from a previous response; INVALID_ARGUMENT when malformed
  std::string filter;      // list_filter.h grammar (docs/reference/ai-platform-training.md §1.6);
                           // INVALID_ARGUMENT when malformed
  FilterDialect dialect = FilterDialect::kMlV1;
  // Only the jobs it accepts, besides the filter (the Vertex API lists its own resources); null:
  // every job.
  std::function<bool(const model::Job&)> scope;
};

struct ListJobsResponse {
  std::vector<model::Job> jobs;  // newest first, ties by jobId
  // Empty on the last page. With a filter a page may hold fewer than `page_size` jobs (even none)
  // and still have a token: one request examines a bounded number of stored jobs.
  std::string next_page_token;
};

// A list page as ml v1 JSON, each job exactly `model::EncodeJob` of it (jobs.list's answer).
struct ListJobsJsonResponse {
  std::vector<std::string> jobs;  // newest first, ties by jobId
  std::string next_page_token;    // as in ListJobsResponse
};

// The job of a write's answer, for a caller that needs no revision.
Result<model::Job> JobOf(Result<store::RevisionedJob> written);

class JobController {
 public:
  JobController(store::JobStore& store, const catalog::Catalog& catalog, const Clock& clock);

  // Validates `job` (every violation, INVALID_ARGUMENT) and stores it as QUEUED with
  // `createTime` and a fresh etag; output-only fields sent by the client are ignored.
  // ALREADY_EXISTS when the id is taken in `project`; RESOURCE_EXHAUSTED (sched::QuotaRefusal)
  // when it can never fit the project's quota (issue #34), and nothing is stored. Returns the
  // stored job.
  Result<model::Job> Submit(std::string_view project, model::Job job);
  // Submit answering with the stored job's ml v1 JSON (the store's text, encoded once).
  Result<std::string> SubmitJson(std::string_view project, model::Job job);

  // Submit under an id `scheme` picks (model/job_id_scheme.h: a TFJob's name rule, Vertex's
  // numbers), so no caller reads the store to find a free one. `job` is checked once, with the
  // scheme's first candidate as its id (a scheme's candidates share one form), then written under
  // each candidate in turn until one is free. ALREADY_EXISTS (the store's words) when a candidate
  // is free but something else the job holds is taken: a live Kubernetes object of the same kind
  // and name. ABORTED when every candidate is taken. Otherwise as Submit. Returns the stored job
  // with the store's revision of the write (a Kubernetes object's resourceVersion). With
  // `dry_run` (a TFJob's `?dryRun=All`) the same checks and the same free candidate, and nothing
  // written: the answer is the job as it would be stored, with revision 0, and a live Kubernetes
  // object of the same kind and name is ALREADY_EXISTS as the write would find it.
  Result<store::RevisionedJob> SubmitWithId(std::string_view project,
                                            const model::JobIdScheme& scheme, model::Job job,
                                            bool dry_run = false);

  Result<model::Job> Get(std::string_view project, std::string_view job_id) const;
  Result<ListJobsResponse> List(std::string_view project, const ListJobsRequest& request) const;

  // Get and List as ml v1 JSON, for answers that are the jobs themselves: the store's text as
  // written (no decoding, no encoding), except a filtered or scoped List, which decodes to match.
  Result<std::string> GetJson(std::string_view project, std::string_view job_id) const;
  Result<ListJobsJsonResponse> ListJson(std::string_view project,
                                        const ListJobsRequest& request) const;

  // QUEUED and PREPARING go straight to CANCELLED with `endTime` and `errorMessage`; RUNNING goes
  // to CANCELLING (the reconcile loop finishes it); CANCELLING is left as is (OK). A job already
  // finished: FAILED_PRECONDITION "Cannot cancel an already completed job.".
  Status Cancel(std::string_view project, std::string_view job_id);

  // Suspends (`suspend`) or resumes the job, as control/reconcile/suspend.h says (an ended job:
  // FAILED_PRECONDITION naming its state; already as asked: unchanged). The executor then stops a
  // running job's replicas and puts it back in the queue, or places a resumed one when it fits.
  // Returns the job as stored afterwards.
  Result<model::Job> SetSuspended(std::string_view project, std::string_view job_id, bool suspend);

  // Applies the fields named in `update_mask` ("labels", "etag") from `patch`. With "etag" in
  // the mask, `patch.etag` must equal the stored etag (ABORTED otherwise). "labels" replaces the
  // whole map, checked with the same rules as on create. Any other mask path, or an empty mask,
  // is INVALID_ARGUMENT. Returns the updated job (unchanged, same etag, when nothing changed).
  Result<model::Job> Patch(std::string_view project, std::string_view job_id,
                           const model::Job& patch, const std::vector<std::string>& update_mask);

  // Returns the job to store, nullopt to leave the job as it is, or an error to return.
  using Change = std::function<Result<std::optional<model::Job>>(const model::Job& current)>;

  // Reads the job, applies `change` and writes the result with a new etag (compare-and-swap,
  // retried on ABORTED). Returns the job as stored afterwards with the store's revision of it:
  // the write's, or the one the job was read at when nothing was written (so a Kubernetes answer
  // carries its resourceVersion without reading the job back). The executor's state transitions
  // go through here, so they serialise with Cancel and Patch.
  Result<store::RevisionedJob> Mutate(std::string_view project, std::string_view job_id,
                                      const Change& change);

  // Mutate for a change that replaces the job's definition (a TFJob's PUT or patch): the job
  // `change` returns must pass validate::Validate (INVALID_ARGUMENT with every violation, nothing
  // written). Nothing is written either when it equals the stored job or with `dry_run`; the
  // answer is then the job as stored, with its revision (as Mutate).
  Result<store::RevisionedJob> Update(std::string_view project, std::string_view job_id,
                                      const Change& change, bool dry_run);

  // Writes `mark` (as Mutate), then cancels the job as Cancel does, except that an ended job is
  // left as it is (no error): a Kubernetes object's delete, which marks it deleted and stops its
  // replicas (it leaves the API once its job has ended). Returns the job as stored after both,
  // with its revision (as Mutate).
  Result<store::RevisionedJob> MarkAndCancel(std::string_view project, std::string_view job_id,
                                             const Change& mark);

  // Called (on the caller's thread, after the change is stored) when a job is submitted or a
  // cancel is recorded, so the executor can react at once. Set before serving.
  void SetChangeListener(std::function<void()> listener) { listener_ = std::move(listener); }

  // What a valid `job` of `project` needs beyond the project's quota even alone (issue #34;
  // sched/quota_check.h); empty when it fits, has no quota, or no policy is set. The Kubernetes
  // API words a refusal from these.
  std::vector<sched::QuotaExcess> QuotaExcesses(std::string_view project,
                                                const model::Job& job) const;

  // The sharing policy Submit checks quotas against (unset: none). Set before serving.
  void SetSharingPolicy(std::function<SharingPolicyPtr()> policy) { sharing_ = std::move(policy); }

  // Where Submit accepts local packageUris from (validate/local_packages.h; every path until
  // set). Set before serving.
  void SetLocalPackagePolicy(validate::LocalPackagePolicy policy) {
    local_packages_ = std::move(policy);
  }

 private:
  WallTime Now() const;
  // What Cancel does to a job that has not ended (an ended one: FAILED_PRECONDITION).
  Result<std::optional<model::Job>> CancelChange(const model::Job& current) const;
  // Cancel's write (then Notify) with `change`, CancelChange or one that wraps it.
  Result<store::RevisionedJob> WriteCancel(std::string_view project, std::string_view job_id,
                                           const Change& change);
  // Submit's work: the stored job and its ml v1 JSON.
  Result<std::pair<model::Job, std::string>> SubmitStored(std::string_view project, model::Job job);
  // What every submit checks and sets before the write (its id already chosen): output-only
  // fields cleared, the rules, local packages, a resumed study, the quota; QUEUED, createTime.
  Status Admit(std::string_view project, model::Job& job) const;
  // A job resuming a study (resumePreviousJobId) names a finished tuning job of this project
  // with the same parameters (tuning::CheckResumable).
  Status CheckResume(std::string_view project, const model::Job& job) const;
  void Notify() const {
    if (listener_) {
      listener_();
    }
  }

  static constexpr std::size_t kStripes = 64;

  store::JobStore& store_;
  const catalog::Catalog& catalog_;
  const Clock& clock_;
  std::function<void()> listener_;
  validate::LocalPackagePolicy local_packages_;
  std::function<SharingPolicyPtr()> sharing_;
  // Serialise read-modify-write of one job inside this process; stripe = hash(project, job id).
  std::array<std::mutex, kStripes> stripes_;
};

}  // namespace trainyard::control
