#include "store/migrations.h"

#include <array>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "model/json_codec.h"

namespace trainyard::store::internal {
namespace {

// v1: jobs. Columns other than `body` mirror fields of the stored job (the `EncodeJob` JSON) so
// that listing, recovery and metrics need no decoding; `state` is the JobState number.
constexpr std::string_view kV1Jobs = R"sql(
CREATE TABLE jobs (
  project        TEXT    NOT NULL,
  job_id         TEXT    NOT NULL,
  create_time_ns INTEGER NOT NULL,
  state          INTEGER NOT NULL,
  etag           TEXT    NOT NULL,
  body           TEXT    NOT NULL,
  PRIMARY KEY (project, job_id)
);
CREATE INDEX jobs_by_create_time ON jobs (project, create_time_ns DESC, job_id);
CREATE INDEX jobs_by_state ON jobs (state);
)sql";

// v2: the Kubernetes API over jobs. `revision` grows with every write to any job (the
// resourceVersion a watch resumes from); `kube_kind` names the kind of the Kubernetes object a
// job is (kept for ever, so a watch sees deletions) and `kube_name` its name while it is in the
// API (NULL once deleted and ended), unique per project and kind so a name has one live object.
constexpr std::string_view kV2KubeObjects = R"sql(
ALTER TABLE jobs ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
ALTER TABLE jobs ADD COLUMN kube_kind TEXT;
ALTER TABLE jobs ADD COLUMN kube_name TEXT;
CREATE INDEX jobs_by_revision ON jobs (revision);
CREATE INDEX jobs_by_kube_kind ON jobs (kube_kind, revision) WHERE kube_kind IS NOT NULL;
CREATE UNIQUE INDEX jobs_by_kube_name ON jobs (project, kube_kind, kube_name)
  WHERE kube_name IS NOT NULL;
)sql";

// v3: a job's ml v1 JSON and its extras in two columns, so that `get` and `list` answer with the
// stored text. `body` becomes exactly `EncodeJob` of the job (what jobs.get returns) and `extras`
// its `EncodeJobExtras`, NULL when it has none. Rows written before held both in `body`
// (`EncodeStoredJob`); SplitExtras moves the extras out of those that have them (a row without
// extras was already its ml v1 JSON).
constexpr std::string_view kV3Extras = "ALTER TABLE jobs ADD COLUMN extras TEXT;";

Status SplitExtras(Connection& db) {
  Result<Statement> select = db.Prepare(
      "SELECT project, job_id, body FROM jobs WHERE instr(body, '\"trainyardExtras\":') > 0");
  if (!select.ok()) {
    return select.status();
  }
  std::vector<std::tuple<std::string, std::string, std::string, std::string>> rows;
  while (true) {
    Result<bool> row = select->Step();
    if (!row.ok()) {
      return row.status();
    }
    if (!*row) {
      break;
    }
    std::string project = select->ColumnText(0);
    std::string job_id = select->ColumnText(1);
    Result<model::Job> job = model::DecodeStoredJob(select->ColumnText(2));
    if (!job.ok()) {
      std::string message = "stored job " + job_id;
      message += " of project " + project;
      message += " cannot be decoded: " + job.status().message();
      return Status::Internal(std::move(message));
    }
    rows.emplace_back(std::move(project), std::move(job_id), model::EncodeJob(*job),
                      job->extras.has_value() ? model::EncodeJobExtras(*job->extras) : "");
  }
  for (const auto& [project, job_id, body, extras] : rows) {
    Result<Statement> update = db.Prepare(
        "UPDATE jobs SET body = ?3, extras = NULLIF(?4, '') WHERE project = ?1 AND job_id = ?2");
    if (!update.ok()) {
      return update.status();
    }
    update->Bind(1, project);
    update->Bind(2, job_id);
    update->Bind(3, body);
    update->Bind(4, extras);
    TY_RETURN_IF_ERROR(update->Run());
  }
  return Status();
}

constexpr std::array kMigrations = {Migration{1, kV1Jobs}, Migration{2, kV2KubeObjects},
                                    Migration{3, kV3Extras, SplitExtras}};

Status EnsureVersionTable(Connection& db) {
  return db.Exec(
      "CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);"
      "INSERT INTO schema_version (version) SELECT 0 WHERE NOT EXISTS "
      "(SELECT 1 FROM schema_version);");
}

}  // namespace

std::span<const Migration> Migrations() {
  return kMigrations;
}

Result<int> SchemaVersion(Connection& db) {
  Result<Statement> exists =
      db.Prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_version'");
  if (!exists.ok()) {
    return exists.status();
  }
  Result<bool> has_table = exists->Step();
  if (!has_table.ok()) {
    return has_table.status();
  }
  if (!*has_table) {
    return 0;
  }
  Result<Statement> select = db.Prepare("SELECT version FROM schema_version");
  if (!select.ok()) {
    return select.status();
  }
  Result<bool> row = select->Step();
  if (!row.ok()) {
    return row.status();
  }
  return *row ? static_cast<int>(select->ColumnInt64(0)) : 0;
}

Status ApplyMigrations(Connection& db, std::span<const Migration> migrations) {
  // BEGIN IMMEDIATE takes the write lock first, so two processes opening the same new file
  // cannot both apply a migration.
  Transaction transaction(db);
  TY_RETURN_IF_ERROR(transaction.status());
  TY_RETURN_IF_ERROR(EnsureVersionTable(db));
  Result<int> current = SchemaVersion(db);
  if (!current.ok()) {
    return current.status();
  }
  const int newest = migrations.empty() ? 0 : migrations.back().version;
  if (*current > newest) {
    return Status::FailedPrecondition(
        "the database has schema version " + std::to_string(*current) +
        ", newer than this trainyard knows (" + std::to_string(newest) + "); upgrade trainyard");
  }
  if (*current == newest) {
    return Status();  // the transaction rolls back: it changed nothing
  }
  int expected = 1;
  for (const Migration& migration : migrations) {
    TY_CHECK(migration.version == expected) << "migrations must be numbered 1, 2, 3, …";
    ++expected;
    if (migration.version <= *current) {
      continue;
    }
    TY_RETURN_IF_ERROR(db.Exec(migration.sql));
    if (migration.rewrite != nullptr) {
      TY_RETURN_IF_ERROR(migration.rewrite(db));
    }
  }
  TY_RETURN_IF_ERROR(
      db.Exec("UPDATE schema_version SET version = " + std::to_string(newest) + ";"));
  return transaction.Commit();
}

}  // namespace trainyard::store::internal
