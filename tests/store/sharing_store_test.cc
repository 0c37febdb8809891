// The sharing store (issue #34): what is put is loaded back, by a reopened store too, and deleting
// what is not there is NOT_FOUND.
#include "store/sharing_store.h"

#include <gtest/gtest.h>

#include "fakes/temp_dir.h"

namespace trainyard::store {
namespace {

using Quotas = std::vector<std::pair<std::string, std::string>>;
using Classes = std::vector<std::pair<std::string, int>>;

TEST(SharingStoreTest, PutsReplaceDeletesRemoveAndAReopenedStoreReadsTheSame) {
  testing::TempDir dir;
  const std::string path = SharingStorePath(dir.path().string());
  {
    Result<std::unique_ptr<SharingStore>> store = OpenSharingStore(path);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    Result<SharingRows> empty = (*store)->Load();
    ASSERT_TRUE(empty.ok());
    EXPECT_TRUE(empty->quotas.empty());
    EXPECT_TRUE(empty->priority_classes.empty());
    ASSERT_TRUE((*store)->PutQuota("b", R"({"cpus":1})").ok());
    ASSERT_TRUE((*store)->PutQuota("a", R"({"cpus":2})").ok());
    ASSERT_TRUE((*store)->PutQuota("b", R"({"cpus":3})").ok());
    ASSERT_TRUE((*store)->PutQuota("c", R"({})").ok());
    ASSERT_TRUE((*store)->DeleteQuota("c").ok());
    EXPECT_EQ((*store)->DeleteQuota("c").code(), Code::kNotFound);
    ASSERT_TRUE((*store)->PutPriorityClass("high", 900).ok());
    ASSERT_TRUE((*store)->PutPriorityClass("high", 1000).ok());
    ASSERT_TRUE((*store)->PutPriorityClass("low", 0).ok());
    ASSERT_TRUE((*store)->PutPriorityClass("gone", 5).ok());
    ASSERT_TRUE((*store)->DeletePriorityClass("gone").ok());
    EXPECT_EQ((*store)->DeletePriorityClass("gone").code(), Code::kNotFound);
  }
  Result<std::unique_ptr<SharingStore>> reopened = OpenSharingStore(path);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  Result<SharingRows> rows = (*reopened)->Load();
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->quotas, (Quotas{{"a", R"({"cpus":2})"}, {"b", R"({"cpus":3})"}}));
  EXPECT_EQ(rows->priority_classes, (Classes{{"high", 1000}, {"low", 0}}));
}

TEST(SharingStoreTest, TheUsageIsReplacedWholeAndReadBackByAReopenedStore) {
  testing::TempDir dir;
  const std::string path = SharingStorePath(dir.path().string());
  {
    Result<std::unique_ptr<SharingStore>> store = OpenSharingStore(path);
    ASSERT_TRUE(store.ok()) << store.status().ToString();
    Result<UsageRows> never = (*store)->LoadUsage();
    ASSERT_TRUE(never.ok()) << never.status().ToString();
    EXPECT_EQ(never->counted_unix_ms, 0);
    EXPECT_TRUE(never->projects.empty());
    ASSERT_TRUE((*store)->PutUsage({.projects = {{"gone", 3}}, .counted_unix_ms = 1000}).ok());
    ASSERT_TRUE((*store)
                    ->PutUsage({.projects = {{"b", 0.25}, {"a", 1800.5}},
                                .counted_unix_ms = 1'767'225'600'123})
                    .ok());
  }
  Result<std::unique_ptr<SharingStore>> reopened = OpenSharingStore(path);
  ASSERT_TRUE(reopened.ok()) << reopened.status().ToString();
  Result<UsageRows> usage = (*reopened)->LoadUsage();
  ASSERT_TRUE(usage.ok()) << usage.status().ToString();
  EXPECT_EQ(usage->counted_unix_ms, 1'767'225'600'123);
  EXPECT_EQ(usage->projects,
            (std::vector<std::pair<std::string, double>>{{"a", 1800.5}, {"b", 0.25}}));
}

TEST(SharingStoreTest, TheFileIsInTheDataDirectory) {
  EXPECT_EQ(SharingStorePath("/var/lib/trainyard"), "/var/lib/trainyard/sharing.db");
  EXPECT_EQ(SharingStorePath("/d/"), "/d/sharing.db");
}

}  // namespace
}  // namespace trainyard::store
