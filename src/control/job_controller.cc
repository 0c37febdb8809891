#include "control/job_controller.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <utility>

#include <fmt/format.h>

#include "control/etag.h"
#include "control/list_filter.h"
#include "control/page_token.h"
#include "control/reconcile/algorithm_output.h"
#include "control/reconcile/job_limits.h"
#include "control/reconcile/suspend.h"
#include "control/resource_names.h"
#include "model/json_codec.h"
#include "os/random.h"
#include "tuning/study_policy.h"
#include "validate/validate.h"

namespace trainyard::control {
namespace {

constexpr int kDefaultPageSize = 20;  // docs/reference/ai-platform-training.md §1.6
constexpr int kMaxPageSize = 100;
// Without a filter each store page is exactly what is missing; with one, the store is read in
// batches and one request examines at most kMaxScanned jobs (then answers with a token), which
// keeps a request that matches little to tens of milliseconds (decoding dominates).
constexpr int kFilterBatch = 200;
constexpr int kMaxScanned = 2'000;
// Only another writer on the same database can make a compare-and-swap fail (this process
// serialises its own), so a few attempts are plenty.
constexpr int kMaxCasAttempts = 16;

constexpr std::string_view kNotFoundMessage = "Field: name Error: The specified job was not found.";
constexpr std::string_view kAlreadyExistsMessage =
    "Field: job.job_id Error: A job with this id already exists.";

Status Invalid(std::string field, std::string description) {
  return Status::InvalidArgument(
      std::vector<FieldViolation>{{std::move(field), std::move(description)}});
}

// The checks every call on an existing job starts with.
Status CheckName(std::string_view project, std::string_view job_id) {
  std::vector<FieldViolation> violations;
  if (auto violation = CheckProjectId(project, "name")) {
    violations.push_back(std::move(*violation));
  }
  if (auto violation = CheckJobIdInName(job_id)) {
    violations.push_back(std::move(*violation));
  }
  return violations.empty() ? Status() : Status::InvalidArgument(std::move(violations));
}

// The store's NOT_FOUND in the API's words; other statuses pass through.
Status ForClient(Status status) {
  if (status.code() == Code::kNotFound) {
    return Status::NotFound(std::string(kNotFoundMessage));
  }
  return status;
}

// Output-only fields (docs/reference/ai-platform-training.md §2.1 "OUT"): the server sets them,
// whatever the client sent.
void ClearOutputOnly(model::Job& job) {
  job.create_time.reset();
  job.start_time.reset();
  job.end_time.reset();
  job.state = model::JobState::kUnspecified;
  job.error_message.clear();
  job.etag.clear();
  job.training_output.reset();
  job.job_position = 0;
}

// Where a list request starts: its page size and cursor, checked.
struct ListStart {
  std::size_t page_size = 0;
  std::optional<store::ListCursor> cursor;
};

Result<ListStart> StartList(std::string_view project, const ListJobsRequest& request) {
  if (auto violation = CheckProjectId(project, "parent")) {
    return Status::InvalidArgument(std::vector<FieldViolation>{std::move(*violation)});
  }
  if (request.page_size < 0) {
    return Invalid("pageSize", "The page size must not be negative.");
  }
  ListStart start;
  start.page_size = static_cast<std::size_t>(
      request.page_size == 0 ? kDefaultPageSize : std::min(request.page_size, kMaxPageSize));
  if (!request.page_token.empty()) {
    Result<store::ListCursor> decoded = DecodePageToken(request.page_token);
    if (!decoded.ok()) {
      return decoded.status();
    }
    start.cursor = std::move(*decoded);
  }
  return start;
}

// The id a scheme gives at `attempt`, with a draw from the kernel's random source when it asks.
Result<std::string> Candidate(const model::JobIdScheme& scheme, int attempt) {
  std::uint64_t draw = 0;
  if (scheme.random) {
    Result<std::string> bytes = os::RandomBytes(sizeof(draw));
    if (!bytes.ok()) {
      return bytes.status();
    }
    std::memcpy(&draw, bytes->data(), sizeof(draw));
  }
  return scheme.candidate(attempt, draw);
}

std::size_t StripeIndex(std::string_view project, std::string_view job_id, std::size_t stripes) {
  const std::size_t h1 = std::hash<std::string_view>{}(project);
  const std::size_t h2 = std::hash<std::string_view>{}(job_id);
  return (h1 * 31 + h2) % stripes;
}

// A dry run's stand-in for the store's refusal to create a second live Kubernetes object of one
// kind and name, which only a write would meet: ALREADY_EXISTS in the store's words.
Status KubeNameFree(const store::JobStore& store, std::string_view project, const model::Job& job) {
  if (!job.extras.has_value() || !job.extras->kube.has_value()) {
    return Status();
  }
  const model::KubeObject& object = *job.extras->kube;
  Result<store::RevisionedJob> holder = store.GetKubeObject(project, object.kind, object.name);
  if (holder.ok()) {
    return Status::AlreadyExists(
        fmt::format("{} {} of {} already exists", object.kind, object.name, project));
  }
  return holder.status().code() == Code::kNotFound ? Status() : holder.status();
}

}  // namespace

JobController::JobController(store::JobStore& store, const catalog::Catalog& catalog,
                             const Clock& clock)
    : store_(store), catalog_(catalog), clock_(clock) {}

WallTime JobController::Now() const {
  return std::chrono::floor<std::chrono::microseconds>(clock_.Now());
}

Status JobController::CheckResume(std::string_view project, const model::Job& job) const {
  if (!job.training_input || !job.training_input->hyperparameters ||
      job.training_input->hyperparameters->resume_previous_job_id.empty()) {
    return Status();
  }
  const model::HyperparameterSpec& spec = *job.training_input->hyperparameters;
  Result<model::Job> previous = store_.Get(project, spec.resume_previous_job_id);
  if (previous.status().code() == Code::kNotFound) {
    return Status::InvalidArgument(
        std::vector<FieldViolation>{{"trainingInput.hyperparameters.resumePreviousJobId",
                                     fmt::format("Job {} does not exist in project {}.",
                                                 spec.resume_previous_job_id, project)}});
  }
  if (!previous.ok()) {
    return previous.status();
  }
  return tuning::CheckResumable(spec, *previous);
}

Result<model::Job> JobController::Submit(std::string_view project, model::Job job) {
  Result<std::pair<model::Job, std::string>> stored = SubmitStored(project, std::move(job));
  if (!stored.ok()) {
    return stored.status();
  }
  return std::move(stored->first);
}

Result<std::string> JobController::SubmitJson(std::string_view project, model::Job job) {
  Result<std::pair<model::Job, std::string>> stored = SubmitStored(project, std::move(job));
  if (!stored.ok()) {
    return stored.status();
  }
  return std::move(stored->second);
}

Status JobController::Admit(std::string_view project, model::Job& job) const {
  if (auto violation = CheckProjectId(project, "parent")) {
    return Status::InvalidArgument(std::vector<FieldViolation>{std::move(*violation)});
  }
  ClearOutputOnly(job);
  TY_RETURN_IF_ERROR(validate::ValidateJob(job, catalog_));
  if (std::vector<FieldViolation> local = validate::CheckLocalPackages(job, local_packages_);
      !local.empty()) {
    return Status::InvalidArgument(std::move(local));
  }
  TY_RETURN_IF_ERROR(CheckResume(project, job));
  if (const std::vector<sched::QuotaExcess> excesses = QuotaExcesses(project, job);
      !excesses.empty()) {
    return sched::QuotaRefusal(project, excesses);
  }
  MarkBuiltInAlgorithm(job);
  job.state = model::JobState::kQueued;
  job.create_time = Now();
  return Status();
}

Result<std::pair<model::Job, std::string>> JobController::SubmitStored(std::string_view project,
                                                                       model::Job job) {
  TY_RETURN_IF_ERROR(Admit(project, job));
  job.etag = NextEtag(project, job.job_id, "");
  Result<store::CreatedJob> created = store_.Create(project, job);
  if (created.status().code() == Code::kAlreadyExists) {
    return Status::AlreadyExists(std::string(kAlreadyExistsMessage));
  }
  if (!created.ok()) {
    return created.status();
  }
  Notify();
  return std::pair(std::move(job), std::move(created->json));
}

Result<store::RevisionedJob> JobController::SubmitWithId(std::string_view project,
                                                         const model::JobIdScheme& scheme,
                                                         model::Job job, bool dry_run) {
  for (int attempt = 0; attempt < scheme.max_attempts; ++attempt) {
    Result<std::string> id = Candidate(scheme, attempt);
    if (!id.ok()) {
      return id.status();
    }
    job.job_id = std::move(*id);
    if (attempt == 0) {
      TY_RETURN_IF_ERROR(Admit(project, job));
      if (dry_run) {
        TY_RETURN_IF_ERROR(KubeNameFree(store_, project, job));
      }
    }
    job.etag = NextEtag(project, job.job_id, "");
    if (dry_run) {  // the first candidate no job holds, as the write would take it
      Result<std::string> holder = store_.GetJson(project, job.job_id);
      if (holder.status().code() == Code::kNotFound) {
        return store::RevisionedJob{.project = std::string(project), .job = std::move(job)};
      }
      if (!holder.ok()) {
        return holder.status();
      }
      continue;
    }
    Result<store::CreatedJob> created = store_.Create(project, job);
    if (created.ok()) {
      Notify();
      return store::RevisionedJob{
          .project = std::string(project), .job = std::move(job), .revision = created->revision};
    }
    if (created.status().code() != Code::kAlreadyExists) {
      return created.status();
    }
    // Taken: the id (another job holds it, so the next candidate), or else what the job holds
    // besides (then no candidate helps).
    Result<std::string> holder = store_.GetJson(project, job.job_id);
    if (holder.status().code() == Code::kNotFound) {
      return created.status();
    }
    if (!holder.ok()) {
      return holder.status();
    }
  }
  return Status::Aborted(
      fmt::format("No free job id after {} attempts; retry the request.", scheme.max_attempts));
}

std::vector<sched::QuotaExcess> JobController::QuotaExcesses(std::string_view project,
                                                             const model::Job& job) const {
  const SharingPolicyPtr policy = sharing_ ? sharing_() : nullptr;
  const sched::ProjectQuota* quota = policy ? policy->QuotaOf(project) : nullptr;
  if (quota == nullptr) {
    return {};
  }
  // A job whose cluster cannot be planned is the queue's to fail, with its own words.
  Result<std::vector<plan::ReplicaShape>> shapes = plan::JobReplicas(job, catalog_);
  if (!shapes.ok()) {
    return {};
  }
  Result<sched::JobDemand> demand = JobDemandOf(std::string(project), job, *shapes, catalog_);
  return demand.ok() ? sched::QuotaExcesses(quota, *demand) : std::vector<sched::QuotaExcess>{};
}

Result<model::Job> JobController::Get(std::string_view project, std::string_view job_id) const {
  TY_RETURN_IF_ERROR(CheckName(project, job_id));
  Result<model::Job> job = store_.Get(project, job_id);
  if (!job.ok()) {
    return ForClient(job.status());
  }
  return job;
}

Result<ListJobsResponse> JobController::List(std::string_view project,
                                             const ListJobsRequest& request) const {
  Result<ListStart> start = StartList(project, request);
  if (!start.ok()) {
    return start.status();
  }
  const std::size_t page_size = start->page_size;
  std::optional<store::ListCursor> cursor = std::move(start->cursor);
  Result<ListFilter> filter = ListFilter::Parse(request.filter, request.dialect);
  if (!filter.ok()) {
    return filter.status();
  }
  const bool every_job = filter->matches_all() && !request.scope;

  ListJobsResponse response;
  int scanned = 0;
  while (true) {
    const int batch = every_job ? static_cast<int>(page_size - response.jobs.size()) : kFilterBatch;
    Result<store::JobPage> page = store_.List(project, cursor, batch);
    if (!page.ok()) {
      return page.status();
    }
    for (std::size_t i = 0; i < page->jobs.size(); ++i) {
      model::Job& job = page->jobs[i];
      if (!job.create_time.has_value()) {
        return Status::Internal("stored job " + job.job_id + " has no createTime");
      }
      cursor = store::ListCursor{*job.create_time, job.job_id};
      ++scanned;
      if (filter->Matches(job) && (!request.scope || request.scope(job))) {
        response.jobs.push_back(std::move(job));
      }
      if (response.jobs.size() == page_size) {
        if (i + 1 < page->jobs.size() || page->next.has_value()) {
          response.next_page_token = EncodePageToken(*cursor);
        }
        return response;
      }
    }
    if (!page->next.has_value()) {
      return response;
    }
    if (scanned >= kMaxScanned) {
      response.next_page_token = EncodePageToken(*cursor);
      return response;
    }
  }
}

Result<std::string> JobController::GetJson(std::string_view project,
                                           std::string_view job_id) const {
  TY_RETURN_IF_ERROR(CheckName(project, job_id));
  Result<std::string> json = store_.GetJson(project, job_id);
  if (!json.ok()) {
    return ForClient(json.status());
  }
  return json;
}

Result<ListJobsJsonResponse> JobController::ListJson(std::string_view project,
                                                     const ListJobsRequest& request) const {
  ListJobsJsonResponse response;
  if (!request.filter.empty() || request.scope) {
    // Matching needs the decoded jobs; the page is List's, encoded.
    Result<ListJobsResponse> page = List(project, request);
    if (!page.ok()) {
      return page.status();
    }
    response.jobs.reserve(page->jobs.size());
    for (const model::Job& job : page->jobs) {
      response.jobs.push_back(model::EncodeJob(job));
    }
    response.next_page_token = std::move(page->next_page_token);
    return response;
  }
  Result<ListStart> start = StartList(project, request);
  if (!start.ok()) {
    return start.status();
  }
  Result<store::JsonPage> page =
      store_.ListJson(project, start->cursor, static_cast<int>(start->page_size));
  if (!page.ok()) {
    return page.status();
  }
  response.jobs = std::move(page->jobs);
  if (page->next.has_value()) {
    response.next_page_token = EncodePageToken(*page->next);
  }
  return response;
}

Result<std::optional<model::Job>> JobController::CancelChange(const model::Job& current) const {
  model::Job next = current;
  switch (current.state) {
    case model::JobState::kQueued:
    case model::JobState::kPreparing:
      next.state = model::JobState::kCancelled;
      next.end_time = Now();
      next.error_message = CancelledMessage();
      next.job_position = 0;
      return std::optional(std::move(next));
    case model::JobState::kRunning:
      next.state = model::JobState::kCancelling;
      return std::optional(std::move(next));
    case model::JobState::kCancelling:
      return std::optional<model::Job>();  // already on its way
    case model::JobState::kSucceeded:
    case model::JobState::kFailed:
    case model::JobState::kCancelled:
      return Status::FailedPrecondition("Cannot cancel an already completed job.");
    case model::JobState::kUnspecified:
      break;
  }
  return Status::Internal("job " + current.job_id + " has no state");
}

Result<store::RevisionedJob> JobController::WriteCancel(std::string_view project,
                                                        std::string_view job_id,
                                                        const Change& change) {
  Result<store::RevisionedJob> cancelled = Mutate(project, job_id, change);
  if (cancelled.ok()) {
    Notify();
  }
  return cancelled;
}

Status JobController::Cancel(std::string_view project, std::string_view job_id) {
  TY_RETURN_IF_ERROR(CheckName(project, job_id));
  return WriteCancel(project, job_id,
                     [this](const model::Job& current) { return CancelChange(current); })
      .status();
}

Result<store::RevisionedJob> JobController::MarkAndCancel(std::string_view project,
                                                          std::string_view job_id,
                                                          const Change& mark) {
  TY_RETURN_IF_ERROR(CheckName(project, job_id));
  TY_RETURN_IF_ERROR(Mutate(project, job_id, mark).status());
  return WriteCancel(project, job_id,
                     [this](const model::Job& current) -> Result<std::optional<model::Job>> {
                       if (model::IsTerminal(current.state)) {
                         return std::optional<model::Job>();
                       }
                       return CancelChange(current);
                     });
}

Result<model::Job> JobController::SetSuspended(std::string_view project, std::string_view job_id,
                                               bool suspend) {
  TY_RETURN_IF_ERROR(CheckName(project, job_id));
  Result<model::Job> changed = JobOf(Mutate(project, job_id, [suspend](const model::Job& current) {
    return SuspendChange(current, suspend);
  }));
  if (changed.ok()) {
    Notify();
  }
  return changed;
}

Result<model::Job> JobController::Patch(std::string_view project, std::string_view job_id,
                                        const model::Job& patch,
                                        const std::vector<std::string>& update_mask) {
  TY_RETURN_IF_ERROR(CheckName(project, job_id));
  if (update_mask.empty()) {
    return Invalid("updateMask", "The update mask must name the fields to update: labels, etag.");
  }
  bool set_labels = false;
  bool check_etag = false;
  std::vector<FieldViolation> violations;
  for (const std::string& path : update_mask) {
    if (path == "labels") {
      set_labels = true;
    } else if (path == "etag") {
      check_etag = true;
    } else {
      violations.push_back({"updateMask", "The field \"" + path +
                                              "\" cannot be updated; only labels and etag can."});
    }
  }
  if (!violations.empty()) {
    return Status::InvalidArgument(std::move(violations));
  }
  const Change change = [&](const model::Job& current) -> Result<std::optional<model::Job>> {
    if (check_etag && patch.etag != current.etag) {
      return Status::Aborted(
          "The etag in the request does not match the job's current etag; read the job again.");
    }
    if (!set_labels || patch.labels == current.labels) {
      return std::optional<model::Job>();
    }
    model::Job next = current;
    next.labels = patch.labels;
    // Only the label rules: a job stored under an older catalog can still be relabelled.
    std::vector<FieldViolation> label_violations = validate::ValidateLabels(next.labels);
    if (!label_violations.empty()) {
      return Status::InvalidArgument(std::move(label_violations));
    }
    return std::optional(std::move(next));
  };
  return JobOf(Mutate(project, job_id, change));
}

Result<store::RevisionedJob> JobController::Update(std::string_view project,
                                                   std::string_view job_id, const Change& change,
                                                   bool dry_run) {
  TY_RETURN_IF_ERROR(CheckName(project, job_id));
  return Mutate(project, job_id,
                [&](const model::Job& current) -> Result<std::optional<model::Job>> {
                  Result<std::optional<model::Job>> next = change(current);
                  if (!next.ok() || !next->has_value()) {
                    return next;
                  }
                  if (std::vector<FieldViolation> violations = validate::Validate(**next, catalog_);
                      !violations.empty()) {
                    return Status::InvalidArgument(std::move(violations));
                  }
                  if (dry_run || **next == current) {
                    return std::optional<model::Job>();
                  }
                  return next;
                });
}

Result<store::RevisionedJob> JobController::Mutate(std::string_view project,
                                                   std::string_view job_id, const Change& change) {
  std::lock_guard lock(stripes_[StripeIndex(project, job_id, kStripes)]);
  for (int attempt = 0; attempt < kMaxCasAttempts; ++attempt) {
    Result<store::RevisionedJob> current = store_.GetRevisioned(project, job_id);
    if (!current.ok()) {
      return ForClient(current.status());
    }
    Result<std::optional<model::Job>> next = change(current->job);
    if (!next.ok()) {
      return next.status();
    }
    if (!next->has_value()) {
      return current;
    }
    model::Job& updated = **next;
    CompleteAlgorithmOutput(current->job, updated);
    updated.etag = NextEtag(project, job_id, current->job.etag);
    Result<std::int64_t> written = store_.Update(project, updated, current->job.etag);
    if (written.ok()) {
      return store::RevisionedJob{
          .project = std::string(project), .job = std::move(updated), .revision = *written};
    }
    if (written.status().code() != Code::kAborted) {
      return ForClient(written.status());
    }
  }
  return Status::Aborted("The job is being changed concurrently; retry the request.");
}

Result<model::Job> JobOf(Result<store::RevisionedJob> written) {
  if (!written.ok()) {
    return written.status();
  }
  return std::move(written->job);
}

}  // namespace trainyard::control
