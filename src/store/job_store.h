// Durable storage of jobs, keyed by (project, jobId).
//
// The embedded implementation is SQLite in WAL mode under the data directory
// (store/sqlite_job_store.h). A call that returns OK has committed: the job survives a SIGKILL of
// the server right after. Implementations are thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/job.h"

namespace trainyard::store {

// A position in a project's job listing: jobs are listed newest first, ties broken by jobId.
struct ListCursor {
  WallTime create_time;
  std::string job_id;
};

struct JobPage {
  std::vector<model::Job> jobs;
  std::optional<ListCursor> next;  // set when more jobs may follow
};

// A page of jobs as their ml v1 JSON, exactly `model::EncodeJob` of each, as stored: for answers
// that are the stored jobs themselves, with no decoding.
struct JsonPage {
  std::vector<std::string> jobs;
  std::optional<ListCursor> next;  // set when more jobs may follow
};

// A job with the store's revision of it: a number that grows with every write to any job, so a
// watcher can ask what changed after a point (the Kubernetes API's resourceVersion).
struct RevisionedJob {
  std::string project;
  model::Job job;
  std::int64_t revision = 0;
};

// What Create stored: the job's ml v1 JSON (what GetJson answers, so a caller answering with the
// job need not encode it again) and the revision of the write (a Kubernetes object's
// resourceVersion, so a caller need not read the job back for it).
struct CreatedJob {
  std::string json;
  std::int64_t revision = 0;
};

// A job is a Kubernetes object when its extras name one (model::KubeObject); it is *live* (in the
// Kubernetes API) unless it was deleted and has ended.
bool IsLiveKubeObject(const model::Job& job);

class JobStore {
 public:
  virtual ~JobStore() = default;

  // Inserts `job` (its `job_id`, `create_time` and `etag` set by the caller) and returns what it
  // stored. ALREADY_EXISTS if the project already has a job with that id, whatever its state, or
  // a live Kubernetes object of the same kind and name.
  virtual Result<CreatedJob> Create(std::string_view project, const model::Job& job) = 0;

  // NOT_FOUND if there is no such job.
  virtual Result<model::Job> Get(std::string_view project, std::string_view job_id) const = 0;

  // Get with the store's revision of the job (its last write), read together.
  virtual Result<RevisionedJob> GetRevisioned(std::string_view project,
                                              std::string_view job_id) const = 0;

  // The job's ml v1 JSON as stored, byte for byte `model::EncodeJob(*Get(project, job_id))`,
  // without decoding it (written once per write). NOT_FOUND if there is no such job.
  virtual Result<std::string> GetJson(std::string_view project, std::string_view job_id) const = 0;

  // Replaces the stored job when its current etag equals `expected_etag` (compare-and-swap) and
  // returns the revision of the write (a Kubernetes object's new resourceVersion, so a caller
  // need not read the job back for it); ABORTED when it does not, NOT_FOUND when the job does not
  // exist.
  virtual Result<std::int64_t> Update(std::string_view project, const model::Job& job,
                                      std::string_view expected_etag) = 0;

  // Up to `limit` jobs of `project` after `after` (from the newest when nullopt).
  virtual Result<JobPage> List(std::string_view project, const std::optional<ListCursor>& after,
                               int limit) const = 0;

  // `List` as stored ml v1 JSON (see GetJson): the same jobs, the same cursor.
  virtual Result<JsonPage> ListJson(std::string_view project,
                                    const std::optional<ListCursor>& after, int limit) const = 0;

  // Every job, in any project, whose state is not terminal (for recovery after a restart).
  virtual Result<std::vector<std::pair<std::string, model::Job>>> ListUnfinished() const = 0;

  // The live Kubernetes object `kind`/`name` of `project`; NOT_FOUND when there is none.
  virtual Result<RevisionedJob> GetKubeObject(std::string_view project, std::string_view kind,
                                              std::string_view name) const = 0;

  // The jobs that are Kubernetes objects of `kind` in `project` ("": every project) written after
  // `after_revision`, oldest write first, at most `limit`. With `live_only`, only live ones;
  // otherwise also those that left the API (a watch's DELETED events).
  virtual Result<std::vector<RevisionedJob>> ListKubeObjects(std::string_view project,
                                                             std::string_view kind,
                                                             std::int64_t after_revision,
                                                             bool live_only, int limit) const = 0;

  // The newest revision (0 for an empty store).
  virtual Result<std::int64_t> Revision() const = 0;

  // Number of jobs per state across all projects (for /metrics).
  virtual Result<std::vector<std::pair<model::JobState, std::int64_t>>> CountByState() const = 0;

  // The projects that hold a job (of any state), in order (the console's project picker).
  virtual Result<std::vector<std::string>> Projects() const = 0;
};

}  // namespace trainyard::store
