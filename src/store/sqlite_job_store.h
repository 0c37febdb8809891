// The embedded `JobStore`: one SQLite database file in WAL mode.
//
// Writes go through one connection guarded by a mutex; reads use a small pool of read-only
// connections, so readers never wait for a writer (WAL). Every method is one SQLite transaction.
// Durability: a call that returned OK has been written to the WAL (synchronous=NORMAL), which
// survives a kill of the process at any point; an OS crash or power loss may lose the last
// commits but never corrupts the file. Thread-safe.
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "store/job_store.h"

namespace trainyard::store {

// Opens the database at `db_path`, creating the file and applying schema migrations as needed.
// The directory must exist. UNAVAILABLE when the file cannot be opened or is locked,
// FAILED_PRECONDITION when it was written by a newer trainyard or cannot use WAL.
Result<std::unique_ptr<JobStore>> OpenSqliteJobStore(const std::string& db_path);

}  // namespace trainyard::store
