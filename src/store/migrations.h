// The SQLite schema as an ordered list of migrations, internal to store/.
//
// `schema_version` holds one row: the version of the last migration applied. Opening a database
// applies, in one transaction, every migration newer than that version; a later issue adds its
// tables (replicas, trials, events, logs) by appending a migration, never by editing an old one.
#pragma once

#include <span>
#include <string_view>

#include "base/status.h"
#include "store/sqlite_connection.h"

namespace trainyard::store::internal {

struct Migration {
  int version;           // 1, 2, 3, … in order, without gaps
  std::string_view sql;  // one or more statements
  // Run after `sql` in the same transaction, for a change of rows SQL cannot make (re-encoding a
  // stored job); null for none.
  Status (*rewrite)(Connection& db) = nullptr;
};

// trainyard's migrations, oldest first.
std::span<const Migration> Migrations();

// Brings `db` up to the last of `migrations` (idempotent: a current database is left as is).
// FAILED_PRECONDITION when the database is newer than the newest migration known here.
Status ApplyMigrations(Connection& db, std::span<const Migration> migrations);

// The version recorded in `db`; 0 for a database no migration has touched.
Result<int> SchemaVersion(Connection& db);

}  // namespace trainyard::store::internal
