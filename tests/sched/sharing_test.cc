#include "sched/sharing.h"

#include <string>

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

struct QuotaOrDefaultCase {
  std::string name;
  std::string project;
  ProjectQuota expected;
};

class QuotaOrDefaultTest : public ::testing::TestWithParam<QuotaOrDefaultCase> {};

TEST_P(QuotaOrDefaultTest, IsTheProjectsRowElseNoLimitsAndWeightOne) {
  SharingPolicy policy;
  policy.projects = {{.project = "a", .weight = 2},
                     {.project = "b", .accelerators = {{"NVIDIA_TESLA_T4", 0}}, .cpus = 8}};
  EXPECT_EQ(policy.QuotaOrDefault(GetParam().project), GetParam().expected);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, QuotaOrDefaultTest,
    ::testing::Values(QuotaOrDefaultCase{"ItsOwnRow", "a", {.project = "a", .weight = 2}},
                      QuotaOrDefaultCase{
                          "ItsOwnRowWithLimits",
                          "b",
                          {.project = "b", .accelerators = {{"NVIDIA_TESLA_T4", 0}}, .cpus = 8}},
                      QuotaOrDefaultCase{"NoRowIsTheDefaultForThatProject", "c", {.project = "c"}},
                      QuotaOrDefaultCase{"APrefixIsNotTheRow", "ab", {.project = "ab"}}),
    [](const auto& tc) { return tc.param.name; });

TEST(DefaultQuotaTest, HasNoLimitsAndWeightOne) {
  const ProjectQuota quota = SharingPolicy{}.QuotaOrDefault("p");
  EXPECT_EQ(quota.project, "p");
  EXPECT_TRUE(quota.accelerators.empty());
  EXPECT_FALSE(quota.cpus.has_value());
  EXPECT_FALSE(quota.memory_mib.has_value());
  EXPECT_FALSE(quota.jobs.has_value());
  EXPECT_EQ(quota.weight, 1);
}

}  // namespace
}  // namespace trainyard::sched
