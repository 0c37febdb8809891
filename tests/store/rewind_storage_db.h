// The storage database as an older trainyard left it, for the migration tests: the columns each
// later migration added are dropped (newest first) and the schema version set back.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

#include <gtest/gtest.h>

#include "store/sqlite_connection.h"

namespace trainyard::store {

// Each storage migration's undoing, by the version it brought.
inline constexpr std::array<std::pair<int, std::string_view>, 5> kStorageUndo = {{
    {2, "ALTER TABLE objects DROP COLUMN headers; ALTER TABLE uploads DROP COLUMN headers;"},
    {3, "ALTER TABLE objects DROP COLUMN metageneration;"},
    {4,
     "ALTER TABLE buckets DROP COLUMN labels; ALTER TABLE buckets DROP COLUMN metageneration;"
     "ALTER TABLE buckets DROP COLUMN updated_ns;"},
    {5, "ALTER TABLE uploads DROP COLUMN conditions;"},
    {6, "ALTER TABLE buckets DROP COLUMN settings;"},
}};

// Rewinds the closed database at `path` to schema `version`.
inline void RewindStorageDb(const std::string& path, int version) {
  auto db = internal::Connection::Open(path, /*read_only=*/false);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  for (auto it = kStorageUndo.rbegin(); it != kStorageUndo.rend(); ++it) {
    if (it->first > version) {
      ASSERT_TRUE((*db)->Exec(it->second).ok()) << it->second;
    }
  }
  ASSERT_TRUE((*db)->Exec("UPDATE schema_version SET version = " + std::to_string(version)).ok());
}

}  // namespace trainyard::store
