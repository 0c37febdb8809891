#include "store/migrations.h"

#include <vector>

#include <gtest/gtest.h>

#include "fakes/temp_dir.h"
#include "store/sqlite_connection.h"
#include "store/sqlite_job_store.h"

namespace trainyard::store::internal {
namespace {

using trainyard::testing::TempDir;

class MigrationsTest : public ::testing::Test {
 protected:
  std::unique_ptr<Connection> Open() {
    Result<std::unique_ptr<Connection>> db = Connection::Open(dir_.File("m.db"), false);
    EXPECT_TRUE(db.ok()) << db.status().ToString();
    return db.ok() ? std::move(*db) : nullptr;
  }

  static bool HasTable(Connection& db, std::string_view name) {
    Result<Statement> select =
        db.Prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?1");
    EXPECT_TRUE(select.ok());
    select->Bind(1, name);
    Result<bool> row = select->Step();
    return row.ok() && *row;
  }

  TempDir dir_;
};

TEST_F(MigrationsTest, AFreshDatabaseHasVersionZero) {
  auto db = Open();
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(*SchemaVersion(*db), 0);
}

TEST_F(MigrationsTest, MigrationsAreNumberedFromOneWithoutGaps) {
  int expected = 1;
  for (const Migration& migration : Migrations()) {
    EXPECT_EQ(migration.version, expected++);
  }
  EXPECT_GE(Migrations().size(), 1U);
}

TEST_F(MigrationsTest, ApplyingTwiceIsANoOp) {
  auto db = Open();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(ApplyMigrations(*db, Migrations()).ok());
  ASSERT_TRUE(db->Exec("INSERT INTO jobs (project, job_id, create_time_ns, state, etag, body) "
                       "VALUES ('p', 'j', 1, 1, 'e', '{}')")
                  .ok());

  const Status again = ApplyMigrations(*db, Migrations());
  EXPECT_TRUE(again.ok()) << again.ToString();
  EXPECT_EQ(*SchemaVersion(*db), static_cast<int>(Migrations().size()));
  Result<Statement> count = db->Prepare("SELECT COUNT(*) FROM jobs");
  ASSERT_TRUE(count.ok() && *count->Step());
  EXPECT_EQ(count->ColumnInt64(0), 1);
}

TEST_F(MigrationsTest, AnAppendedMigrationRunsOnceOnAnExistingDatabase) {
  auto db = Open();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(ApplyMigrations(*db, Migrations()).ok());
  std::vector<Migration> extended(Migrations().begin(), Migrations().end());
  extended.push_back({static_cast<int>(extended.size()) + 1,
                      "CREATE TABLE replicas (project TEXT NOT NULL, job_id TEXT NOT NULL);"});

  ASSERT_TRUE(ApplyMigrations(*db, extended).ok());
  ASSERT_TRUE(ApplyMigrations(*db, extended).ok());  // would fail if CREATE TABLE ran twice

  EXPECT_TRUE(HasTable(*db, "replicas"));
  EXPECT_EQ(*SchemaVersion(*db), static_cast<int>(extended.size()));
}

TEST_F(MigrationsTest, AFailingMigrationLeavesTheDatabaseAsItWas) {
  auto db = Open();
  ASSERT_NE(db, nullptr);
  ASSERT_TRUE(ApplyMigrations(*db, Migrations()).ok());
  std::vector<Migration> broken(Migrations().begin(), Migrations().end());
  broken.push_back(
      {static_cast<int>(broken.size()) + 1, "CREATE TABLE half (x INTEGER); THIS IS NOT SQL;"});

  EXPECT_EQ(ApplyMigrations(*db, broken).code(), Code::kInternal);
  EXPECT_FALSE(HasTable(*db, "half"));
  EXPECT_EQ(*SchemaVersion(*db), static_cast<int>(Migrations().size()));
}

TEST_F(MigrationsTest, ADatabaseFromANewerTrainyardIsRefused) {
  {
    auto db = Open();
    ASSERT_NE(db, nullptr);
    ASSERT_TRUE(ApplyMigrations(*db, Migrations()).ok());
    ASSERT_TRUE(db->Exec("UPDATE schema_version SET version = 999").ok());
  }
  Result<std::unique_ptr<JobStore>> store = OpenSqliteJobStore(dir_.File("m.db"));
  ASSERT_FALSE(store.ok());
  EXPECT_EQ(store.status().code(), Code::kFailedPrecondition) << store.status().ToString();
}

TEST_F(MigrationsTest, OpeningTheStoreTwiceKeepsTheSchemaVersion) {
  for (int i = 0; i < 2; ++i) {
    Result<std::unique_ptr<JobStore>> store = OpenSqliteJobStore(dir_.File("m.db"));
    ASSERT_TRUE(store.ok()) << store.status().ToString();
  }
  auto db = Open();
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(*SchemaVersion(*db), static_cast<int>(Migrations().size()));
}

}  // namespace
}  // namespace trainyard::store::internal
