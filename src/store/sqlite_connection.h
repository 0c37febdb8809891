// RAII wrappers for SQLite handles, internal to store/: a connection that caches its prepared
// statements, and a borrowed statement that resets itself when it goes out of scope.
//
// A `Connection` is used by one thread at a time (it is opened with SQLITE_OPEN_NOMUTEX); the
// owner serialises access (the store's writer mutex or its reader pool). SQLite errors come back
// as `Status` values: UNAVAILABLE for conditions a retry may clear (busy, locked, full, IO),
// INTERNAL for everything else, both carrying SQLite's own message.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace trainyard::store::internal {

struct DbCloser {
  void operator()(sqlite3* db) const;
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* stmt) const;
};
using DbHandle = std::unique_ptr<sqlite3, DbCloser>;
using StmtHandle = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

// The status for return code `rc` of a call on `db`; `what` says what was being done.
Status SqliteError(sqlite3* db, int rc, std::string_view what);

// A prepared statement borrowed from a `Connection`'s cache. Binds are 1-based, as in SQLite.
// Its destructor resets the statement and clears its bindings, so the next user starts clean.
class Statement {
 public:
  Statement(sqlite3_stmt* stmt, sqlite3* db) : stmt_(stmt), db_(db) {}
  Statement(Statement&& other) noexcept
      : stmt_(std::exchange(other.stmt_, nullptr)), db_(other.db_) {}
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  Statement& operator=(Statement&&) = delete;
  ~Statement();

  void Bind(int index, std::int64_t value);
  void Bind(int index, std::string_view text);  // SQLite copies the text

  // Runs to the next row: true when a row is available, false when done.
  Result<bool> Step();
  // Runs a statement that returns no rows.
  Status Run();

  // The extended result code of the last failed `Step`/`Run` (e.g. SQLITE_CONSTRAINT_PRIMARYKEY).
  int LastErrorCode() const;

  std::int64_t ColumnInt64(int index) const;
  std::string ColumnText(int index) const;
  bool IsNull(int index) const;  // the column's value is SQL NULL
  // Steps through every row left, collecting the first column's text.
  Result<std::vector<std::string>> FirstColumnTexts();

 private:
  sqlite3_stmt* stmt_;  // null once moved from
  sqlite3* db_;
};

class Connection {
 public:
  // Opens (creating if needed) the database at `path` and sets the per-connection pragmas:
  // busy_timeout, foreign_keys, synchronous=NORMAL; `read_only` adds query_only.
  static Result<std::unique_ptr<Connection>> Open(const std::string& path, bool read_only);

  // Runs one or more statements without parameters (schema, pragmas, BEGIN/COMMIT).
  Status Exec(std::string_view sql);

  // The cached prepared statement for `sql` (compiled on first use). The returned `Statement`
  // must be destroyed before this connection is used for another statement with the same text.
  Result<Statement> Prepare(std::string_view sql);

  // Rows changed by the last INSERT/UPDATE/DELETE on this connection.
  std::int64_t Changes() const;

 private:
  explicit Connection(DbHandle db) : db_(std::move(db)) {}

  // Statements are finalised before the connection is closed: members are destroyed in reverse.
  DbHandle db_;
  std::map<std::string, StmtHandle, std::less<>> statements_;
};

// BEGIN IMMEDIATE on construction (see `status()`); ROLLBACK on destruction unless `Commit()`.
class Transaction {
 public:
  explicit Transaction(Connection& db);
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();

  const Status& status() const { return begin_; }  // not OK when BEGIN failed
  Status Commit();

 private:
  Connection& db_;
  Status begin_;
  bool open_ = false;
};

// Puts the database file of `db` in write-ahead-log mode (a property of the file: later
// connections use it). FAILED_PRECONDITION naming `path` where SQLite cannot use WAL (it then
// keeps the old mode without an error, e.g. on some network file systems).
Status EnableWal(Connection& db, const std::string& path);

}  // namespace trainyard::store::internal
