#include "store/storage_db.h"

#include <array>
#include <chrono>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "base/clock.h"
#include "store/migrations.h"

namespace trainyard::store::internal {
namespace {

// v1: buckets, objects (valid while the file has the recorded size, mtime and inode) and
// resumable uploads (the bytes received so far are the session's file in the scratch dir).
constexpr std::string_view kV1Storage = R"sql(
CREATE TABLE buckets (
  name           TEXT    NOT NULL PRIMARY KEY,
  project        TEXT    NOT NULL,
  create_time_ns INTEGER NOT NULL
);
CREATE INDEX buckets_by_project ON buckets (project, name);
CREATE TABLE objects (
  bucket       TEXT    NOT NULL,
  name         TEXT    NOT NULL,
  generation   INTEGER NOT NULL,
  content_type TEXT    NOT NULL,
  metadata     TEXT    NOT NULL,
  size         INTEGER NOT NULL,
  mtime_ns     INTEGER NOT NULL,
  inode        INTEGER NOT NULL,
  md5          TEXT    NOT NULL,
  crc32c       TEXT    NOT NULL,
  updated_ns   INTEGER NOT NULL,
  PRIMARY KEY (bucket, name)
);
CREATE TABLE uploads (
  id             TEXT    NOT NULL PRIMARY KEY,
  bucket         TEXT    NOT NULL,
  name           TEXT    NOT NULL,
  content_type   TEXT    NOT NULL,
  metadata       TEXT    NOT NULL,
  create_time_ns INTEGER NOT NULL,
  done           INTEGER NOT NULL DEFAULT 0
);
)sql";

// v2: the object fields served as download headers (cacheControl, …), a JSON object by their
// GCS names, for objects and for the sessions that will write them.
constexpr std::string_view kV2Headers = R"sql(
ALTER TABLE objects ADD COLUMN headers TEXT NOT NULL DEFAULT '{}';
ALTER TABLE uploads ADD COLUMN headers TEXT NOT NULL DEFAULT '{}';
)sql";

// v3: each object's metageneration, which a metadata change (objects.patch) raises.
constexpr std::string_view kV3Metageneration = R"sql(
ALTER TABLE objects ADD COLUMN metageneration INTEGER NOT NULL DEFAULT 1;
)sql";

// v4: what a bucket's metadata change (buckets.patch) sets: its labels (a JSON object), its
// metageneration and the time of the last change (its creation for the buckets before).
constexpr std::string_view kV4BucketFields = R"sql(
ALTER TABLE buckets ADD COLUMN labels TEXT NOT NULL DEFAULT '{}';
ALTER TABLE buckets ADD COLUMN metageneration INTEGER NOT NULL DEFAULT 1;
ALTER TABLE buckets ADD COLUMN updated_ns INTEGER NOT NULL DEFAULT 0;
UPDATE buckets SET updated_ns = create_time_ns;
)sql";

// v5: a resumable session's request preconditions (a JSON object by their parameter names),
// evaluated when its last byte arrives.
constexpr std::string_view kV5UploadConditions = R"sql(
ALTER TABLE uploads ADD COLUMN conditions TEXT NOT NULL DEFAULT '{}';
)sql";

// v6: the bucket resource's members kept as given (cors, website): a JSON object by their names.
constexpr std::string_view kV6BucketSettings = R"sql(
ALTER TABLE buckets ADD COLUMN settings TEXT NOT NULL DEFAULT '{}';
)sql";

constexpr std::array kStorageMigrations = {
    Migration{1, kV1Storage},          Migration{2, kV2Headers},
    Migration{3, kV3Metageneration},   Migration{4, kV4BucketFields},
    Migration{5, kV5UploadConditions}, Migration{6, kV6BucketSettings}};

// Each precondition with its name in the `conditions` column.
struct ConditionColumn {
  std::string_view name;
  std::optional<std::int64_t> Preconditions::*field;
};
constexpr std::array<ConditionColumn, 4> kConditionColumns = {{
    {"ifGenerationMatch", &Preconditions::if_generation_match},
    {"ifGenerationNotMatch", &Preconditions::if_generation_not_match},
    {"ifMetagenerationMatch", &Preconditions::if_metageneration_match},
    {"ifMetagenerationNotMatch", &Preconditions::if_metageneration_not_match},
}};

std::string EncodeConditions(const Preconditions& conditions) {
  nlohmann::json json = nlohmann::json::object();
  for (const ConditionColumn& column : kConditionColumns) {
    if (const auto& value = conditions.*column.field; value.has_value()) {
      json[std::string(column.name)] = *value;
    }
  }
  return json.dump();
}

Preconditions DecodeConditions(const std::string& text) {
  const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  Preconditions conditions;
  for (const ConditionColumn& column : kConditionColumns) {
    const auto value = json.is_object() ? json.find(column.name) : json.end();
    if (json.is_object() && value != json.end() && value->is_number_integer()) {
      conditions.*column.field = value->get<std::int64_t>();
    }
  }
  return conditions;
}

// A bucket's columns, in the order `BucketOf` reads them.
constexpr std::string_view kBucketColumns =
    "name, project, create_time_ns, labels, metageneration, updated_ns, settings";

std::string EncodeMetadata(const std::map<std::string, std::string>& metadata) {
  return nlohmann::json(metadata).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::map<std::string, std::string> DecodeMetadata(const std::string& text) {
  auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  std::map<std::string, std::string> metadata;
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) {
      if (value.is_string()) {
        metadata.emplace(key, value.get<std::string>());
      }
    }
  }
  return metadata;
}

std::string EncodeHeaders(const ObjectHeaders& headers) {
  nlohmann::json json = nlohmann::json::object();
  for (const ObjectHeaderField& field : kObjectHeaderFields) {
    if (!(headers.*field.field).empty()) {
      json[std::string(field.json_name)] = headers.*field.field;
    }
  }
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

ObjectHeaders DecodeHeaders(const std::string& text) {
  const std::map<std::string, std::string> values = DecodeMetadata(text);
  ObjectHeaders headers;
  for (const ObjectHeaderField& field : kObjectHeaderFields) {
    if (const auto it = values.find(std::string(field.json_name)); it != values.end()) {
      headers.*field.field = it->second;
    }
  }
  return headers;
}

// Settings (member name -> JSON text) as one JSON object, and back.
std::string EncodeSettings(const std::map<std::string, std::string>& settings) {
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [name, text] : settings) {
    json[name] = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  }
  return json.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::map<std::string, std::string> DecodeSettings(const std::string& text) {
  const auto json = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  std::map<std::string, std::string> settings;
  if (json.is_object()) {
    for (const auto& [name, value] : json.items()) {
      settings.emplace(name, value.dump());
    }
  }
  return settings;
}

// The bucket of a row selected with kBucketColumns.
BucketInfo BucketOf(const Statement& row) {
  return BucketInfo{.name = row.ColumnText(0),
                    .project = row.ColumnText(1),
                    .create_time = FromNanos(row.ColumnInt64(2)),
                    .metageneration = row.ColumnInt64(4),
                    .updated = FromNanos(row.ColumnInt64(5)),
                    .labels = DecodeMetadata(row.ColumnText(3)),
                    .settings = DecodeSettings(row.ColumnText(6))};
}

// Runs `sql` with text parameters `args` (1-based, in order) and no result rows.
Status RunText(Connection& db, std::string_view sql, std::initializer_list<std::string_view> args) {
  Result<Statement> statement = db.Prepare(sql);
  if (!statement.ok()) {
    return statement.status();
  }
  int index = 1;
  for (const std::string_view arg : args) {
    statement->Bind(index++, arg);
  }
  return statement->Run();
}

}  // namespace

Result<std::unique_ptr<StorageDb>> StorageDb::Open(const std::string& path) {
  Result<std::unique_ptr<Connection>> db = Connection::Open(path, /*read_only=*/false);
  if (!db.ok()) {
    return db.status();
  }
  TY_RETURN_IF_ERROR(EnableWal(**db, path));
  TY_RETURN_IF_ERROR(ApplyMigrations(**db, kStorageMigrations));
  return std::unique_ptr<StorageDb>(new StorageDb(*std::move(db)));
}

Status StorageDb::InsertBucket(const BucketInfo& bucket) {
  std::lock_guard lock(mu_);
  Result<Statement> insert = db_->Prepare(
      "INSERT INTO buckets (name, project, create_time_ns, labels, metageneration, updated_ns, "
      "settings) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  if (!insert.ok()) {
    return insert.status();
  }
  insert->Bind(1, bucket.name);
  insert->Bind(2, bucket.project);
  insert->Bind(3, ToNanos(bucket.create_time));
  insert->Bind(4, EncodeMetadata(bucket.labels));
  insert->Bind(5, bucket.metageneration);
  insert->Bind(6, ToNanos(bucket.updated));
  insert->Bind(7, EncodeSettings(bucket.settings));
  Status status = insert->Run();
  if (!status.ok() && insert->LastErrorCode() == SQLITE_CONSTRAINT_PRIMARYKEY) {
    return Status::AlreadyExists("The bucket " + bucket.name + " already exists.");
  }
  return status;
}

Result<std::optional<BucketInfo>> StorageDb::GetBucket(std::string_view name) {
  std::lock_guard lock(mu_);
  return GetBucketLocked(name);
}

Result<std::optional<BucketInfo>> StorageDb::GetBucketLocked(std::string_view name) {
  Result<Statement> select =
      db_->Prepare(fmt::format("SELECT {} FROM buckets WHERE name = ?1", kBucketColumns));
  if (!select.ok()) {
    return select.status();
  }
  select->Bind(1, name);
  Result<bool> row = select->Step();
  if (!row.ok()) {
    return row.status();
  }
  return *row ? std::optional<BucketInfo>(BucketOf(*select)) : std::nullopt;
}

Result<std::vector<BucketInfo>> StorageDb::ListBuckets(std::string_view project) {
  std::lock_guard lock(mu_);
  Result<Statement> select = db_->Prepare(
      fmt::format("SELECT {} FROM buckets WHERE project = ?1 ORDER BY name", kBucketColumns));
  if (!select.ok()) {
    return select.status();
  }
  select->Bind(1, project);
  std::vector<BucketInfo> buckets;
  while (true) {
    Result<bool> row = select->Step();
    if (!row.ok()) {
      return row.status();
    }
    if (!*row) {
      return buckets;
    }
    buckets.push_back(BucketOf(*select));
  }
}

Result<BucketInfo> StorageDb::UpdateBucket(std::string_view name,
                                           const std::map<std::string, std::string>& labels,
                                           const std::map<std::string, std::string>& settings,
                                           std::int64_t expected_metageneration, WallTime updated) {
  std::lock_guard lock(mu_);
  Result<Statement> update = db_->Prepare(
      "UPDATE buckets SET labels = ?1, metageneration = metageneration + 1, updated_ns = ?2, "
      "settings = ?5 WHERE name = ?3 AND metageneration = ?4");
  if (!update.ok()) {
    return update.status();
  }
  update->Bind(1, EncodeMetadata(labels));
  update->Bind(2, ToNanos(updated));
  update->Bind(3, name);
  update->Bind(4, expected_metageneration);
  update->Bind(5, EncodeSettings(settings));
  TY_RETURN_IF_ERROR(update->Run());
  const bool changed = db_->Changes() > 0;
  Result<std::optional<BucketInfo>> bucket = GetBucketLocked(name);
  if (!bucket.ok()) {
    return bucket.status();
  }
  if (!bucket->has_value()) {
    return Status::NotFound("The specified bucket does not exist.");
  }
  if (!changed) {
    return Status::Aborted(fmt::format("The bucket {} changed meanwhile (metageneration {}).", name,
                                       (*bucket)->metageneration));
  }
  return **bucket;
}

Result<std::vector<std::string>> StorageDb::BucketProjects() {
  std::lock_guard lock(mu_);
  Result<Statement> select = db_->Prepare("SELECT DISTINCT project FROM buckets ORDER BY project");
  if (!select.ok()) {
    return select.status();
  }
  return select->FirstColumnTexts();
}

Status StorageDb::DeleteBucket(std::string_view name, const Preconditions& conditions,
                               const std::function<Status()>& remove_files) {
  std::lock_guard lock(mu_);
  Transaction transaction(*db_);
  TY_RETURN_IF_ERROR(transaction.status());
  Result<std::optional<BucketInfo>> bucket = GetBucketLocked(name);
  if (!bucket.ok()) {
    return bucket.status();
  }
  if (!bucket->has_value()) {
    return Status::NotFound("The specified bucket does not exist.");
  }
  TY_RETURN_IF_ERROR(CheckBucketConditions(conditions, (*bucket)->metageneration));
  if (remove_files) {
    TY_RETURN_IF_ERROR(remove_files());
  }
  TY_RETURN_IF_ERROR(RunText(*db_, "DELETE FROM objects WHERE bucket = ?1", {name}));
  TY_RETURN_IF_ERROR(RunText(*db_, "DELETE FROM uploads WHERE bucket = ?1", {name}));
  TY_RETURN_IF_ERROR(RunText(*db_, "DELETE FROM buckets WHERE name = ?1", {name}));
  return transaction.Commit();
}

Result<std::optional<ObjectRow>> StorageDb::GetObject(std::string_view bucket,
                                                      std::string_view name) {
  std::lock_guard lock(mu_);
  Result<Statement> select = db_->Prepare(
      "SELECT generation, content_type, metadata, size, mtime_ns, inode, md5, crc32c, "
      "updated_ns, headers, metageneration FROM objects WHERE bucket = ?1 AND name = ?2");
  if (!select.ok()) {
    return select.status();
  }
  select->Bind(1, bucket);
  select->Bind(2, name);
  Result<bool> row = select->Step();
  if (!row.ok()) {
    return row.status();
  }
  if (!*row) {
    return std::optional<ObjectRow>();
  }
  return std::optional<ObjectRow>(ObjectRow{.generation = select->ColumnInt64(0),
                                            .metageneration = select->ColumnInt64(10),
                                            .content_type = select->ColumnText(1),
                                            .metadata = DecodeMetadata(select->ColumnText(2)),
                                            .headers = DecodeHeaders(select->ColumnText(9)),
                                            .stat = FileStat{.size = select->ColumnInt64(3),
                                                             .mtime_ns = select->ColumnInt64(4),
                                                             .inode = select->ColumnInt64(5)},
                                            .md5_base64 = select->ColumnText(6),
                                            .crc32c_base64 = select->ColumnText(7),
                                            .updated_ns = select->ColumnInt64(8)});
}

Status StorageDb::PutObject(std::string_view bucket, std::string_view name, const ObjectRow& row) {
  std::lock_guard lock(mu_);
  Result<Statement> upsert = db_->Prepare(
      "INSERT OR REPLACE INTO objects (bucket, name, generation, content_type, metadata, size, "
      "mtime_ns, inode, md5, crc32c, updated_ns, headers, metageneration) "
      "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)");
  if (!upsert.ok()) {
    return upsert.status();
  }
  upsert->Bind(1, bucket);
  upsert->Bind(2, name);
  upsert->Bind(3, row.generation);
  upsert->Bind(4, row.content_type);
  upsert->Bind(5, EncodeMetadata(row.metadata));
  upsert->Bind(6, row.stat.size);
  upsert->Bind(7, row.stat.mtime_ns);
  upsert->Bind(8, row.stat.inode);
  upsert->Bind(9, row.md5_base64);
  upsert->Bind(10, row.crc32c_base64);
  upsert->Bind(11, row.updated_ns);
  upsert->Bind(12, EncodeHeaders(row.headers));
  upsert->Bind(13, row.metageneration);
  return upsert->Run();
}

Status StorageDb::DeleteObject(std::string_view bucket, std::string_view name) {
  std::lock_guard lock(mu_);
  return RunText(*db_, "DELETE FROM objects WHERE bucket = ?1 AND name = ?2", {bucket, name});
}

Status StorageDb::InsertUpload(const UploadRow& upload) {
  std::lock_guard lock(mu_);
  Result<Statement> insert = db_->Prepare(
      "INSERT INTO uploads (id, bucket, name, content_type, metadata, create_time_ns, headers, "
      "conditions) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  if (!insert.ok()) {
    return insert.status();
  }
  insert->Bind(1, upload.id);
  insert->Bind(2, upload.bucket);
  insert->Bind(3, upload.name);
  insert->Bind(4, upload.content_type);
  insert->Bind(5, EncodeMetadata(upload.metadata));
  insert->Bind(6, upload.create_ns);
  insert->Bind(7, EncodeHeaders(upload.headers));
  insert->Bind(8, EncodeConditions(upload.conditions));
  return insert->Run();
}

Result<std::optional<UploadRow>> StorageDb::GetUpload(std::string_view id) {
  std::lock_guard lock(mu_);
  Result<Statement> select = db_->Prepare(
      "SELECT bucket, name, content_type, metadata, create_time_ns, done, headers, conditions "
      "FROM uploads WHERE id = ?1");
  if (!select.ok()) {
    return select.status();
  }
  select->Bind(1, id);
  Result<bool> row = select->Step();
  if (!row.ok()) {
    return row.status();
  }
  if (!*row) {
    return std::optional<UploadRow>();
  }
  return std::optional<UploadRow>(UploadRow{.id = std::string(id),
                                            .bucket = select->ColumnText(0),
                                            .name = select->ColumnText(1),
                                            .content_type = select->ColumnText(2),
                                            .metadata = DecodeMetadata(select->ColumnText(3)),
                                            .headers = DecodeHeaders(select->ColumnText(6)),
                                            .conditions = DecodeConditions(select->ColumnText(7)),
                                            .create_ns = select->ColumnInt64(4),
                                            .done = select->ColumnInt64(5) != 0});
}

Status StorageDb::MarkUploadDone(std::string_view id) {
  std::lock_guard lock(mu_);
  return RunText(*db_, "UPDATE uploads SET done = 1 WHERE id = ?1", {id});
}

Status StorageDb::DeleteUpload(std::string_view id) {
  std::lock_guard lock(mu_);
  return RunText(*db_, "DELETE FROM uploads WHERE id = ?1", {id});
}

Result<std::vector<std::string>> StorageDb::UploadsBefore(std::int64_t create_ns) {
  std::lock_guard lock(mu_);
  Result<Statement> select = db_->Prepare("SELECT id FROM uploads WHERE create_time_ns < ?1");
  if (!select.ok()) {
    return select.status();
  }
  select->Bind(1, create_ns);
  return select->FirstColumnTexts();
}

}  // namespace trainyard::store::internal
