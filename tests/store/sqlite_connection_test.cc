// SqliteError's wording of SQLite's result codes: a full disk (SQLITE_FULL, here a database at its
// max_page_count) is RESOURCE_EXHAUSTED saying so in a user's words, without the statement.
#include "store/sqlite_connection.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fakes/temp_dir.h"

namespace trainyard::store::internal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SqliteError, AFullDatabaseIsResourceExhaustedInAUsersWords) {
  trainyard::testing::TempDir dir;
  Result<std::unique_ptr<Connection>> db = Connection::Open(dir.File("full.db"), false);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  ASSERT_TRUE((*db)->Exec("CREATE TABLE t (x BLOB)").ok());
  ASSERT_TRUE((*db)->Exec("PRAGMA max_page_count = 16").ok());
  Status status;
  for (int i = 0; i < 100 && status.ok(); ++i) {
    status = (*db)->Exec("INSERT INTO t VALUES (zeroblob(4096))");
  }
  EXPECT_EQ(status.code(), Code::kResourceExhausted) << status.ToString();
  EXPECT_THAT(status.message(), HasSubstr("The server's disk is full (database or disk is full)"));
  EXPECT_THAT(status.message(), Not(HasSubstr("INSERT")));
}

TEST(SqliteError, OtherFailuresKeepTheStatementAndTheirCode) {
  trainyard::testing::TempDir dir;
  Result<std::unique_ptr<Connection>> db = Connection::Open(dir.File("other.db"), false);
  ASSERT_TRUE(db.ok()) << db.status().ToString();
  const Status status = (*db)->Exec("SELECT * FROM missing");
  EXPECT_EQ(status.code(), Code::kInternal);
  EXPECT_THAT(status.message(), HasSubstr("missing"));
}

}  // namespace
}  // namespace trainyard::store::internal
