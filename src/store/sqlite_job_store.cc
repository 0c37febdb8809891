#include "store/sqlite_job_store.h"

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <sqlite3.h>

#include "base/clock.h"
#include "model/json_codec.h"
#include "store/connection_pool.h"
#include "store/migrations.h"
#include "store/sqlite_connection.h"

namespace trainyard::store {
namespace {

using internal::Connection;
using internal::ConnectionPool;
using internal::Statement;

// Readers run concurrently with the writer and with each other (WAL); a handful covers a server
// whose request threads are few.
constexpr int kReaderConnections = 4;
constexpr int kMaxListLimit = 1000;

// Every write takes the next revision of the whole store (the writer is one connection under a
// lock, so the subquery and the write are one step).
constexpr std::string_view kInsert =
    "INSERT INTO jobs (project, job_id, create_time_ns, state, etag, body, kube_kind, kube_name, "
    "extras, revision) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?8, ?9, ?10, "
    "(SELECT COALESCE(MAX(revision), 0) + 1 FROM jobs)) RETURNING revision";
// `body` is the job's ml v1 JSON (model::EncodeJob) and `extras` its extras' JSON or NULL
// (migrations.cc, v3); a decoded job needs both, an answer that is the ml v1 job only the first.
constexpr std::string_view kGet =
    "SELECT body, extras, revision FROM jobs WHERE project = ?1 AND job_id = ?2";
constexpr std::string_view kGetJson = "SELECT body FROM jobs WHERE project = ?1 AND job_id = ?2";
constexpr std::string_view kExists = "SELECT 1 FROM jobs WHERE project = ?1 AND job_id = ?2";
// Compare-and-swap in one statement: no row changes unless the stored etag is the expected one;
// the changed row's new revision comes back (as an insert's does).
constexpr std::string_view kUpdate =
    "UPDATE jobs SET create_time_ns = ?3, state = ?4, etag = ?5, body = ?6, kube_kind = ?8, "
    "kube_name = ?9, extras = ?10, revision = (SELECT MAX(revision) + 1 FROM jobs) "
    "WHERE project = ?1 AND job_id = ?2 AND etag = ?7 RETURNING revision";
constexpr std::string_view kGetKube =
    "SELECT body, extras, revision FROM jobs WHERE project = ?1 AND kube_kind = ?2 "
    "AND kube_name = ?3";
constexpr std::string_view kListKube =
    "SELECT project, body, extras, revision FROM jobs WHERE kube_kind = ?1 AND revision > ?2 "
    "AND (?3 = '' OR project = ?3) AND (?4 = 0 OR kube_name IS NOT NULL) "
    "ORDER BY revision LIMIT ?5";
constexpr std::string_view kRevision = "SELECT COALESCE(MAX(revision), 0) FROM jobs";
constexpr std::string_view kListFirst =
    "SELECT body, extras, create_time_ns, job_id FROM jobs WHERE project = ?1 "
    "ORDER BY create_time_ns DESC, job_id LIMIT ?2";
// `create_time_ns <= ?2` is a range on the index, so a page starts at the cursor instead of
// scanning the pages before it; the OR only drops the cursor's own ties.
constexpr std::string_view kListAfter =
    "SELECT body, extras, create_time_ns, job_id FROM jobs WHERE project = ?1 "
    "AND create_time_ns <= ?2 "
    "AND (create_time_ns < ?2 OR job_id > ?3) "
    "ORDER BY create_time_ns DESC, job_id LIMIT ?4";
constexpr std::string_view kCountByState =
    "SELECT state, COUNT(*) FROM jobs GROUP BY state ORDER BY state";
// The primary key (project, job_id) answers it without reading the rows.
constexpr std::string_view kProjects = "SELECT DISTINCT project FROM jobs ORDER BY project";

// "SELECT project, body FROM jobs WHERE state IN (<every non-terminal state>) …", so the rule of
// what is terminal stays in model::IsTerminal.
std::string ListUnfinishedSql() {
  std::string states;
  for (int s = 0; s <= static_cast<int>(model::JobState::kCancelled); ++s) {
    if (!model::IsTerminal(static_cast<model::JobState>(s))) {
      states += states.empty() ? "" : ", ";
      states += std::to_string(s);
    }
  }
  return "SELECT project, body, extras, job_id, revision FROM jobs WHERE state IN (" + states +
         ") ORDER BY create_time_ns, project, job_id";
}

std::string JobName(std::string_view project, std::string_view job_id) {
  std::string name = "job projects/";
  name += project;
  name += "/jobs/";
  name += job_id;
  return name;
}

std::string KubeName(std::string_view project, const model::Job& job) {
  if (!job.extras.has_value() || !job.extras->kube.has_value()) {
    return JobName(project, job.job_id);
  }
  return job.extras->kube->kind + " " + job.extras->kube->name + " of " + std::string(project);
}

// The job in columns `first` (body) and `first + 1` (extras) of the current row.
// A list's limit in [1, kMaxListLimit], or INVALID_ARGUMENT.
Status CheckListLimit(int limit) {
  if (limit < 1 || limit > kMaxListLimit) {
    return Status::InvalidArgument("store: list limit must be in [1, " +
                                   std::to_string(kMaxListLimit) + "]");
  }
  return Status();
}

Result<model::Job> DecodeStored(std::string_view project, const Statement& row, int first) {
  Result<model::Job> job = model::DecodeStoredJob(row.ColumnText(first), row.ColumnText(first + 1));
  if (!job.ok()) {
    return Status::Internal("a stored job of project " + std::string(project) +
                            " cannot be decoded: " + job.status().message());
  }
  return job;
}

// A row's job and its revision: body and extras at `first` and `first + 1` (DecodeStored), the
// revision at `first + 2`.
Result<RevisionedJob> DecodeRevisioned(std::string project, const Statement& row, int first) {
  Result<model::Job> job = DecodeStored(project, row, first);
  if (!job.ok()) {
    return job.status();
  }
  return RevisionedJob{std::move(project), *std::move(job), row.ColumnInt64(first + 2)};
}

class SqliteJobStore final : public JobStore {
 public:
  SqliteJobStore(std::unique_ptr<Connection> writer, std::unique_ptr<ConnectionPool> readers)
      : writer_(std::move(writer)),
        readers_(std::move(readers)),
        list_unfinished_sql_(ListUnfinishedSql()) {}

  Result<CreatedJob> Create(std::string_view project, const model::Job& job) override {
    if (!job.create_time.has_value()) {
      return Status::InvalidArgument("store: a new job needs its create_time");
    }
    StoredText text = Encode(job);
    std::lock_guard lock(write_mu_);
    Result<Statement> insert = writer_->Prepare(kInsert);
    if (!insert.ok()) {
      return insert.status();
    }
    BindRow(*insert, project, job, text);
    // The row RETURNING gives, then the end of the statement (which commits it).
    Result<bool> row = insert->Step();
    if (!row.ok() && insert->LastErrorCode() == SQLITE_CONSTRAINT_PRIMARYKEY) {
      return Status::AlreadyExists(JobName(project, job.job_id) + " already exists");
    }
    if (!row.ok() && insert->LastErrorCode() == SQLITE_CONSTRAINT_UNIQUE) {
      return Status::AlreadyExists(KubeName(project, job) + " already exists");
    }
    if (!row.ok()) {
      return row.status();
    }
    if (!*row) {
      return Status::Internal("store: an insert returned no revision");
    }
    const std::int64_t revision = insert->ColumnInt64(0);
    TY_RETURN_IF_ERROR(insert->Run());
    return CreatedJob{.json = std::move(text.body), .revision = revision};
  }

  Result<model::Job> Get(std::string_view project, std::string_view job_id) const override {
    return GetRow<model::Job>(kGet, project, job_id,
                              [&](Statement& row) { return DecodeStored(project, row, 0); });
  }

  Result<RevisionedJob> GetRevisioned(std::string_view project,
                                      std::string_view job_id) const override {
    return GetRow<RevisionedJob>(kGet, project, job_id, [&](Statement& row) {
      return DecodeRevisioned(std::string(project), row, 0);
    });
  }

  Result<std::string> GetJson(std::string_view project, std::string_view job_id) const override {
    return GetRow<std::string>(kGetJson, project, job_id,
                               [](Statement& row) { return row.ColumnText(0); });
  }

  Result<std::int64_t> Update(std::string_view project, const model::Job& job,
                              std::string_view expected_etag) override {
    if (!job.create_time.has_value()) {
      return Status::InvalidArgument("store: an updated job keeps its create_time");
    }
    const StoredText text = Encode(job);
    std::lock_guard lock(write_mu_);
    Result<Statement> update = writer_->Prepare(kUpdate);
    if (!update.ok()) {
      return update.status();
    }
    BindRow(*update, project, job, text);
    update->Bind(7, expected_etag);
    // The row RETURNING gives when the etag matched, then the end of the statement (its commit).
    Result<bool> row = update->Step();
    if (!row.ok()) {
      return row.status();
    }
    if (*row) {
      const std::int64_t revision = update->ColumnInt64(0);
      TY_RETURN_IF_ERROR(update->Run());
      return revision;
    }
    // Nothing changed: tell a missing job from a stale etag (still under the writer lock).
    Result<Statement> exists = writer_->Prepare(kExists);
    if (!exists.ok()) {
      return exists.status();
    }
    exists->Bind(1, project);
    exists->Bind(2, job.job_id);
    Result<bool> found = exists->Step();
    if (!found.ok()) {
      return found.status();
    }
    if (!*found) {
      return Status::NotFound(JobName(project, job.job_id) + " not found");
    }
    return Status::Aborted(JobName(project, job.job_id) + " was changed concurrently (etag)");
  }

  Result<JobPage> List(std::string_view project, const std::optional<ListCursor>& after,
                       int limit) const override {
    JobPage page;
    TY_RETURN_IF_ERROR(
        ListRows(project, after, limit, page.next, [&](const Statement& row) -> Status {
          Result<model::Job> job = DecodeStored(project, row, 0);
          if (!job.ok()) {
            return job.status();
          }
          page.jobs.push_back(std::move(*job));
          return Status();
        }));
    return page;
  }

  Result<JsonPage> ListJson(std::string_view project, const std::optional<ListCursor>& after,
                            int limit) const override {
    JsonPage page;
    TY_RETURN_IF_ERROR(
        ListRows(project, after, limit, page.next, [&](const Statement& row) -> Status {
          page.jobs.push_back(row.ColumnText(0));
          return Status();
        }));
    return page;
  }

  Result<std::vector<std::pair<std::string, model::Job>>> ListUnfinished() const override {
    ConnectionPool::Lease reader = readers_->Acquire();
    Result<Statement> list = reader->Prepare(list_unfinished_sql_);
    if (!list.ok()) {
      return list.status();
    }
    std::vector<std::pair<std::string, model::Job>> jobs;
    // The executor lists the unfinished jobs on every pass, and most of them have not changed
    // since the last: a job whose revision is the one decoded before is copied, not decoded.
    // Every write takes a new revision, so a changed job is always decoded again.
    std::lock_guard lock(unfinished_mu_);
    UnfinishedCache seen;
    while (true) {
      Result<bool> row = list->Step();
      if (!row.ok()) {
        return row.status();
      }
      if (!*row) {
        unfinished_ = std::move(seen);  // ended jobs leave the cache
        return jobs;
      }
      std::string project = list->ColumnText(0);
      std::pair<std::string, std::string> key(project, list->ColumnText(3));
      const std::int64_t revision = list->ColumnInt64(4);
      const auto cached = unfinished_.find(key);
      if (cached != unfinished_.end() && cached->second.revision == revision) {
        jobs.emplace_back(std::move(project), cached->second.job);
        seen.emplace(std::move(key), std::move(cached->second));
        continue;
      }
      Result<model::Job> job = DecodeStored(project, *list, 1);
      if (!job.ok()) {
        return job.status();
      }
      seen.emplace(std::move(key), DecodedJob{.revision = revision, .job = *job});
      jobs.emplace_back(std::move(project), std::move(*job));
    }
  }

  Result<RevisionedJob> GetKubeObject(std::string_view project, std::string_view kind,
                                      std::string_view name) const override {
    ConnectionPool::Lease reader = readers_->Acquire();
    Result<Statement> get = reader->Prepare(kGetKube);
    if (!get.ok()) {
      return get.status();
    }
    get->Bind(1, project);
    get->Bind(2, kind);
    get->Bind(3, name);
    Result<bool> row = get->Step();
    if (!row.ok()) {
      return row.status();
    }
    if (!*row) {
      return Status::NotFound(std::string(kind) + " " + std::string(name) + " of " +
                              std::string(project) + " not found");
    }
    return DecodeRevisioned(std::string(project), *get, 0);
  }

  Result<std::vector<RevisionedJob>> ListKubeObjects(std::string_view project,
                                                     std::string_view kind,
                                                     std::int64_t after_revision, bool live_only,
                                                     int limit) const override {
    TY_RETURN_IF_ERROR(CheckListLimit(limit));
    ConnectionPool::Lease reader = readers_->Acquire();
    Result<Statement> list = reader->Prepare(kListKube);
    if (!list.ok()) {
      return list.status();
    }
    list->Bind(1, kind);
    list->Bind(2, after_revision);
    list->Bind(3, project);
    list->Bind(4, std::int64_t{live_only ? 1 : 0});
    list->Bind(5, std::int64_t{limit});
    std::vector<RevisionedJob> jobs;
    while (true) {
      Result<bool> row = list->Step();
      if (!row.ok()) {
        return row.status();
      }
      if (!*row) {
        return jobs;
      }
      Result<RevisionedJob> job = DecodeRevisioned(list->ColumnText(0), *list, 1);
      if (!job.ok()) {
        return job.status();
      }
      jobs.push_back(*std::move(job));
    }
  }

  Result<std::int64_t> Revision() const override {
    ConnectionPool::Lease reader = readers_->Acquire();
    Result<Statement> select = reader->Prepare(kRevision);
    if (!select.ok()) {
      return select.status();
    }
    Result<bool> row = select->Step();
    if (!row.ok()) {
      return row.status();
    }
    return *row ? select->ColumnInt64(0) : 0;
  }

  Result<std::vector<std::string>> Projects() const override {
    ConnectionPool::Lease reader = readers_->Acquire();
    Result<Statement> select = reader->Prepare(kProjects);
    if (!select.ok()) {
      return select.status();
    }
    return select->FirstColumnTexts();
  }

  Result<std::vector<std::pair<model::JobState, std::int64_t>>> CountByState() const override {
    ConnectionPool::Lease reader = readers_->Acquire();
    Result<Statement> count = reader->Prepare(kCountByState);
    if (!count.ok()) {
      return count.status();
    }
    std::vector<std::pair<model::JobState, std::int64_t>> counts;
    while (true) {
      Result<bool> row = count->Step();
      if (!row.ok()) {
        return row.status();
      }
      if (!*row) {
        return counts;
      }
      counts.emplace_back(static_cast<model::JobState>(count->ColumnInt64(0)),
                          count->ColumnInt64(1));
    }
  }

 private:
  // The one row `sql` selects for (project, job id), read by `read`; NOT_FOUND without one.
  template <typename T, typename Read>
  Result<T> GetRow(std::string_view sql, std::string_view project, std::string_view job_id,
                   const Read& read) const {
    ConnectionPool::Lease reader = readers_->Acquire();
    Result<Statement> get = reader->Prepare(sql);
    if (!get.ok()) {
      return get.status();
    }
    get->Bind(1, project);
    get->Bind(2, job_id);
    Result<bool> row = get->Step();
    if (!row.ok()) {
      return row.status();
    }
    if (!*row) {
      return Status::NotFound(JobName(project, job_id) + " not found");
    }
    return read(*get);
  }

  // Calls `take` on each of up to `limit` rows (body, extras, create_time_ns, job_id) of the
  // project's listing after `after`, and sets `next` when more rows follow.
  template <typename Take>
  Status ListRows(std::string_view project, const std::optional<ListCursor>& after, int limit,
                  std::optional<ListCursor>& next, Take take) const {
    TY_RETURN_IF_ERROR(CheckListLimit(limit));
    ConnectionPool::Lease reader = readers_->Acquire();
    Result<Statement> list = reader->Prepare(after.has_value() ? kListAfter : kListFirst);
    if (!list.ok()) {
      return list.status();
    }
    list->Bind(1, project);
    // One row more than asked tells whether another page exists.
    if (after.has_value()) {
      list->Bind(2, ToNanos(after->create_time));
      list->Bind(3, after->job_id);
      list->Bind(4, std::int64_t{limit} + 1);
    } else {
      list->Bind(2, std::int64_t{limit} + 1);
    }
    ListCursor last;
    for (int taken = 0;; ++taken) {
      Result<bool> row = list->Step();
      if (!row.ok()) {
        return row.status();
      }
      if (!*row) {
        return Status();
      }
      if (taken == limit) {
        next = std::move(last);
        return Status();
      }
      TY_RETURN_IF_ERROR(take(*list));
      last = ListCursor{FromNanos(list->ColumnInt64(2)), list->ColumnText(3)};
    }
  }

  // What a write stores: the job encoded once.
  struct StoredText {
    std::string body;    // model::EncodeJob: what jobs.get answers
    std::string extras;  // model::EncodeJobExtras, or empty (NULL) when the job has none
  };

  static StoredText Encode(const model::Job& job) {
    return {model::EncodeJob(job),
            job.extras.has_value() ? model::EncodeJobExtras(*job.extras) : std::string()};
  }

  static void BindRow(Statement& statement, std::string_view project, const model::Job& job,
                      const StoredText& text) {
    statement.Bind(1, project);
    statement.Bind(2, job.job_id);
    statement.Bind(3, ToNanos(*job.create_time));
    statement.Bind(4, std::int64_t{static_cast<int>(job.state)});
    statement.Bind(5, job.etag);
    statement.Bind(6, text.body);
    if (job.extras.has_value()) {
      statement.Bind(10, text.extras);
    }
    if (job.extras.has_value() && job.extras->kube.has_value()) {
      statement.Bind(8, job.extras->kube->kind);
      if (IsLiveKubeObject(job)) {
        statement.Bind(9, job.extras->kube->name);
      }
    }
  }

  std::mutex write_mu_;
  // ListUnfinished's last answer by (project, job id), with the revision each was decoded at.
  struct DecodedJob {
    std::int64_t revision = 0;
    model::Job job;
  };
  using UnfinishedCache = std::map<std::pair<std::string, std::string>, DecodedJob>;
  mutable std::mutex unfinished_mu_;
  mutable UnfinishedCache unfinished_;
  std::unique_ptr<Connection> writer_;  // guarded by write_mu_
  std::unique_ptr<ConnectionPool> readers_;
  const std::string list_unfinished_sql_;
};

}  // namespace

bool IsLiveKubeObject(const model::Job& job) {
  if (!job.extras.has_value() || !job.extras->kube.has_value()) {
    return false;
  }
  return !job.extras->kube->deletion_time.has_value() || !model::IsTerminal(job.state);
}

Result<std::unique_ptr<JobStore>> OpenSqliteJobStore(const std::string& db_path) {
  Result<std::unique_ptr<Connection>> writer = Connection::Open(db_path, /*read_only=*/false);
  if (!writer.ok()) {
    return writer.status();
  }
  TY_RETURN_IF_ERROR(EnableWal(**writer, db_path));
  TY_RETURN_IF_ERROR(internal::ApplyMigrations(**writer, internal::Migrations()));
  Result<std::unique_ptr<ConnectionPool>> readers =
      ConnectionPool::Open(db_path, kReaderConnections);
  if (!readers.ok()) {
    return readers.status();
  }
  return std::unique_ptr<JobStore>(
      std::make_unique<SqliteJobStore>(std::move(*writer), std::move(*readers)));
}

}  // namespace trainyard::store
