#include <array>
#include <cmath>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "store/migrations.h"
#include "store/sharing_store.h"
#include "store/sqlite_connection.h"

namespace trainyard::store {
namespace {

using internal::Connection;
using internal::Migration;
using internal::Statement;

constexpr std::string_view kV1Sharing = R"sql(
CREATE TABLE project_quotas (
  project TEXT NOT NULL PRIMARY KEY,
  quota   TEXT NOT NULL
);
CREATE TABLE priority_classes (
  name  TEXT    NOT NULL PRIMARY KEY,
  value INTEGER NOT NULL
);
)sql";

// The recent usage (sched/recent_usage.h): one row per project, in microseconds of the whole
// inventory, and the one time it was counted at.
constexpr std::string_view kV2Usage = R"sql(
CREATE TABLE project_usage (
  project   TEXT    NOT NULL PRIMARY KEY,
  device_us INTEGER NOT NULL
);
CREATE TABLE usage_counted (
  id        INTEGER NOT NULL PRIMARY KEY CHECK (id = 1),
  unix_ms   INTEGER NOT NULL
);
)sql";

constexpr std::array kSharingMigrations = {Migration{1, kV1Sharing}, Migration{2, kV2Usage}};
constexpr double kMicros = 1e6;

class SqliteSharingStore final : public SharingStore {
 public:
  explicit SqliteSharingStore(std::unique_ptr<Connection> db) : db_(std::move(db)) {}

  Result<SharingRows> Load() const override {
    std::lock_guard lock(mu_);
    SharingRows rows;
    Result<Statement> quotas =
        db_->Prepare("SELECT project, quota FROM project_quotas ORDER BY project");
    if (!quotas.ok()) {
      return quotas.status();
    }
    for (Result<bool> row = quotas->Step();; row = quotas->Step()) {
      if (!row.ok()) {
        return row.status();
      }
      if (!*row) {
        break;
      }
      rows.quotas.emplace_back(quotas->ColumnText(0), quotas->ColumnText(1));
    }
    Result<Statement> classes =
        db_->Prepare("SELECT name, value FROM priority_classes ORDER BY name");
    if (!classes.ok()) {
      return classes.status();
    }
    for (Result<bool> row = classes->Step();; row = classes->Step()) {
      if (!row.ok()) {
        return row.status();
      }
      if (!*row) {
        break;
      }
      rows.priority_classes.emplace_back(classes->ColumnText(0),
                                         static_cast<int>(classes->ColumnInt64(1)));
    }
    return rows;
  }

  Result<UsageRows> LoadUsage() const override {
    std::lock_guard lock(mu_);
    UsageRows usage;
    Result<Statement> counted = db_->Prepare("SELECT unix_ms FROM usage_counted WHERE id = 1");
    if (!counted.ok()) {
      return counted.status();
    }
    Result<bool> found = counted->Step();
    if (!found.ok()) {
      return found.status();
    }
    if (!*found) {
      return usage;
    }
    usage.counted_unix_ms = counted->ColumnInt64(0);
    Result<Statement> projects =
        db_->Prepare("SELECT project, device_us FROM project_usage ORDER BY project");
    if (!projects.ok()) {
      return projects.status();
    }
    for (Result<bool> row = projects->Step();; row = projects->Step()) {
      if (!row.ok()) {
        return row.status();
      }
      if (!*row) {
        break;
      }
      usage.projects.emplace_back(projects->ColumnText(0),
                                  static_cast<double>(projects->ColumnInt64(1)) / kMicros);
    }
    return usage;
  }

  Status PutUsage(const UsageRows& usage) override {
    std::lock_guard lock(mu_);
    internal::Transaction transaction(*db_);
    TY_RETURN_IF_ERROR(transaction.status());
    TY_RETURN_IF_ERROR(db_->Exec("DELETE FROM project_usage"));
    for (const auto& [project, seconds] : usage.projects) {
      Result<Statement> insert =
          db_->Prepare("INSERT INTO project_usage (project, device_us) VALUES (?1, ?2)");
      if (!insert.ok()) {
        return insert.status();
      }
      insert->Bind(1, project);
      insert->Bind(2, static_cast<std::int64_t>(std::llround(seconds * kMicros)));
      TY_RETURN_IF_ERROR(insert->Run());
    }
    Result<Statement> counted = db_->Prepare(
        "INSERT INTO usage_counted (id, unix_ms) VALUES (1, ?1) "
        "ON CONFLICT (id) DO UPDATE SET unix_ms = excluded.unix_ms");
    if (!counted.ok()) {
      return counted.status();
    }
    counted->Bind(1, usage.counted_unix_ms);
    TY_RETURN_IF_ERROR(counted->Run());
    return transaction.Commit();
  }

  Status PutQuota(std::string_view project, std::string_view quota_json) override {
    return Write(
               "INSERT INTO project_quotas (project, quota) VALUES (?1, ?2) "
               "ON CONFLICT (project) DO UPDATE SET quota = excluded.quota",
               project, [&](Statement& s) { s.Bind(2, quota_json); })
        .status();
  }

  Status DeleteQuota(std::string_view project) override {
    return Deleted(Write("DELETE FROM project_quotas WHERE project = ?1", project),
                   fmt::format("project {} has no quota", project));
  }

  Status PutPriorityClass(std::string_view name, int value) override {
    return Write(
               "INSERT INTO priority_classes (name, value) VALUES (?1, ?2) "
               "ON CONFLICT (name) DO UPDATE SET value = excluded.value",
               name, [&](Statement& s) { s.Bind(2, std::int64_t{value}); })
        .status();
  }

  Status DeletePriorityClass(std::string_view name) override {
    return Deleted(Write("DELETE FROM priority_classes WHERE name = ?1", name),
                   fmt::format("there is no priority class named {}", name));
  }

 private:
  // Runs `sql` with `key` as ?1 and what `bind` adds; the rows it changed.
  template <typename Bind = void (*)(Statement&)>
  Result<std::int64_t> Write(
      std::string_view sql, std::string_view key, Bind bind = [](Statement&) {}) {
    std::lock_guard lock(mu_);
    Result<Statement> statement = db_->Prepare(sql);
    if (!statement.ok()) {
      return statement.status();
    }
    statement->Bind(1, key);
    bind(*statement);
    TY_RETURN_IF_ERROR(statement->Run());
    return db_->Changes();
  }

  static Status Deleted(const Result<std::int64_t>& changes, std::string message) {
    if (!changes.ok()) {
      return changes.status();
    }
    return *changes == 0 ? Status::NotFound(std::move(message)) : Status();
  }

  mutable std::mutex mu_;
  std::unique_ptr<Connection> db_;  // guarded by mu_
};

}  // namespace

Result<std::unique_ptr<SharingStore>> OpenSharingStore(const std::string& path) {
  Result<std::unique_ptr<Connection>> db = Connection::Open(path, /*read_only=*/false);
  if (!db.ok()) {
    return db.status();
  }
  TY_RETURN_IF_ERROR(internal::EnableWal(**db, path));
  TY_RETURN_IF_ERROR(internal::ApplyMigrations(**db, kSharingMigrations));
  return std::unique_ptr<SharingStore>(std::make_unique<SqliteSharingStore>(*std::move(db)));
}

std::string SharingStorePath(std::string_view data_dir) {
  std::string path(data_dir);
  if (!path.empty() && path.back() != '/') {
    path += '/';
  }
  return path + "sharing.db";
}

}  // namespace trainyard::store
