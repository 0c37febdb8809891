#include "sched/sharing.h"

#include <gtest/gtest.h>

namespace trainyard::sched {
namespace {

TEST(SharingPolicyTest, QuotaOfFindsTheProjectsRowAndNothingForOthers) {
  SharingPolicy policy;
  policy.projects = {{.project = "a", .weight = 2}, {.project = "b", .jobs = 3}};
  ASSERT_NE(policy.QuotaOf("a"), nullptr);
  EXPECT_EQ(policy.QuotaOf("a")->weight, 2);
  ASSERT_NE(policy.QuotaOf("b"), nullptr);
  EXPECT_EQ(policy.QuotaOf("b")->jobs, 3);
  EXPECT_EQ(policy.QuotaOf("ab"), nullptr);
  EXPECT_EQ(policy.QuotaOf(""), nullptr);
  EXPECT_EQ(SharingPolicy{}.QuotaOf("a"), nullptr);
}

}  // namespace
}  // namespace trainyard::sched
