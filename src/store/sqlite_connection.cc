#include "store/sqlite_connection.h"

#include <string>

#include <sqlite3.h>

#include "base/disk_full.h"

namespace trainyard::store::internal {
namespace {

constexpr int kBusyTimeoutMs = 5000;
// Page cache per connection, in KiB (SQLite's negative form). The default 2 MiB stops holding
// the jobs indexes at about 30,000 jobs, and inserts then slow down by half; 32 MiB holds them
// well past 100,000 for the writer. Readers touch less and get 8 MiB each.
constexpr int kWriterCacheKiB = 32 * 1024;
constexpr int kReaderCacheKiB = 8 * 1024;

// Errors that may go away on retry: another process holds a lock, the disk is full or failing.
bool IsTransient(int rc) {
  switch (rc & 0xff) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
    case SQLITE_FULL:
    case SQLITE_IOERR:
    case SQLITE_CANTOPEN:
    case SQLITE_READONLY:
      return true;
    default:
      return false;
  }
}

}  // namespace

void DbCloser::operator()(sqlite3* db) const {
  sqlite3_close_v2(db);
}
void StmtFinalizer::operator()(sqlite3_stmt* stmt) const {
  sqlite3_finalize(stmt);
}

Status SqliteError(sqlite3* db, int rc, std::string_view what) {
  if ((rc & 0xff) == SQLITE_FULL) {  // `what` (a statement) means nothing to a user
    return DiskFullError("store the change in its database", sqlite3_errstr(rc));
  }
  std::string message = "sqlite: ";
  message += what;
  message += ": ";
  message += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  return IsTransient(rc) ? Status::Unavailable(std::move(message))
                         : Status::Internal(std::move(message));
}

Statement::~Statement() {
  if (stmt_ != nullptr) {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
}

void Statement::Bind(int index, std::int64_t value) {
  sqlite3_bind_int64(stmt_, index, value);
}

void Statement::Bind(int index, std::string_view text) {
  // A null pointer would bind SQL NULL; an empty view must stay the empty string.
  const char* data = text.data() != nullptr ? text.data() : "";
  sqlite3_bind_text64(stmt_, index, data, text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

Result<bool> Statement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc == SQLITE_DONE) {
    return false;
  }
  return SqliteError(db_, sqlite3_extended_errcode(db_), sqlite3_sql(stmt_));
}

Status Statement::Run() {
  Result<bool> row = Step();
  if (!row.ok()) {
    return row.status();
  }
  return Status();
}

int Statement::LastErrorCode() const {
  return sqlite3_extended_errcode(db_);
}

std::int64_t Statement::ColumnInt64(int index) const {
  return sqlite3_column_int64(stmt_, index);
}

bool Statement::IsNull(int index) const {
  return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}

std::string Statement::ColumnText(int index) const {
  const auto* text = sqlite3_column_text(stmt_, index);
  const int size = sqlite3_column_bytes(stmt_, index);
  return text == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(text), size);
}

Result<std::vector<std::string>> Statement::FirstColumnTexts() {
  std::vector<std::string> texts;
  while (true) {
    Result<bool> row = Step();
    if (!row.ok()) {
      return row.status();
    }
    if (!*row) {
      return texts;
    }
    texts.push_back(ColumnText(0));
  }
}

Result<std::unique_ptr<Connection>> Connection::Open(const std::string& path, bool read_only) {
  sqlite3* raw = nullptr;
  const int flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  const int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  DbHandle db(raw);  // sqlite3_open_v2 allocates a handle even when it fails
  if (rc != SQLITE_OK) {
    return SqliteError(db.get(), rc, "opening " + path);
  }
  sqlite3_extended_result_codes(db.get(), 1);
  sqlite3_busy_timeout(db.get(), kBusyTimeoutMs);
  std::unique_ptr<Connection> connection(new Connection(std::move(db)));
  // NORMAL with WAL: a commit is durable once written to the WAL, which survives a crash or kill
  // of this process; only an OS crash or power loss can lose the last commits (never corrupts).
  TY_RETURN_IF_ERROR(connection->Exec("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;"));
  const int cache_kib = read_only ? kReaderCacheKiB : kWriterCacheKiB;
  TY_RETURN_IF_ERROR(connection->Exec("PRAGMA cache_size = -" + std::to_string(cache_kib) + ";"));
  if (read_only) {
    TY_RETURN_IF_ERROR(connection->Exec("PRAGMA query_only = ON;"));
  }
  return connection;
}

Status Connection::Exec(std::string_view sql) {
  const std::string text(sql);
  char* error = nullptr;
  const int rc = sqlite3_exec(db_.get(), text.c_str(), nullptr, nullptr, &error);
  sqlite3_free(error);  // the same text is available from sqlite3_errmsg
  if (rc != SQLITE_OK) {
    return SqliteError(db_.get(), sqlite3_extended_errcode(db_.get()), text);
  }
  return Status();
}

Result<Statement> Connection::Prepare(std::string_view sql) {
  auto it = statements_.find(sql);
  if (it == statements_.end()) {
    sqlite3_stmt* raw = nullptr;
    const int rc = sqlite3_prepare_v3(db_.get(), sql.data(), static_cast<int>(sql.size()),
                                      SQLITE_PREPARE_PERSISTENT, &raw, nullptr);
    StmtHandle stmt(raw);
    if (rc != SQLITE_OK) {
      return SqliteError(db_.get(), rc, "preparing " + std::string(sql));
    }
    it = statements_.emplace(std::string(sql), std::move(stmt)).first;
  }
  return Statement(it->second.get(), db_.get());
}

std::int64_t Connection::Changes() const {
  return sqlite3_changes64(db_.get());
}

Transaction::Transaction(Connection& db) : db_(db), begin_(db.Exec("BEGIN IMMEDIATE")) {
  open_ = begin_.ok();
}

Transaction::~Transaction() {
  if (open_) {
    (void)db_.Exec("ROLLBACK");  // nothing more to do if even the rollback fails
  }
}

Status Transaction::Commit() {
  TY_RETURN_IF_ERROR(begin_);
  Status status = db_.Exec("COMMIT");
  open_ = !status.ok();
  return status;
}

Status EnableWal(Connection& db, const std::string& path) {
  Result<Statement> pragma = db.Prepare("PRAGMA journal_mode = WAL");
  if (!pragma.ok()) {
    return pragma.status();
  }
  Result<bool> row = pragma->Step();
  if (!row.ok()) {
    return row.status();
  }
  if (!*row || pragma->ColumnText(0) != "wal") {
    return Status::FailedPrecondition("sqlite: " + path +
                                      " cannot use write-ahead logging; put the data directory "
                                      "on a local file system");
  }
  return Status();
}

}  // namespace trainyard::store::internal
