#include <string>

#include "validate/rule_case.h"
#include "validate/validate.h"

namespace trainyard::validate::testing {
namespace {

using model::Job;

void ManyLabels(Job& job, int n) {
  for (int i = 0; i < n; ++i) {
    job.labels["label_" + std::to_string(i)] = "v";
  }
}

class LabelRules : public RuleTest {};
TEST_P(LabelRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

// docs/reference/ai-platform-training.md §2.8 #15: GCP label rules.
INSTANTIATE_TEST_SUITE_P(
    Gcp, LabelRules,
    ::testing::Values(
        RuleCase{"Plain", RuntimeJob,
                 [](Job& j) {
                   j.labels = {{"team", "ml-infra_2"}};
                 },
                 ""},
        RuleCase{"EmptyValue", RuntimeJob,
                 [](Job& j) {
                   j.labels = {{"owner", ""}};
                 },
                 ""},
        RuleCase{"SixtyFourLabels", RuntimeJob, [](Job& j) { ManyLabels(j, 64); }, ""},
        RuleCase{"SixtyFiveLabels", RuntimeJob, [](Job& j) { ManyLabels(j, 65); }, "labels"},
        // Refused in one pass over the labels (issue #31: the Vertex API once took 20 s here).
        RuleCase{"HundredThousandLabels", RuntimeJob, [](Job& j) { ManyLabels(j, 100'000); },
                 "labels"},
        RuleCase{"KeyUppercase", RuntimeJob,
                 [](Job& j) {
                   j.labels = {{"Team", "ml"}};
                 },
                 "labels"},
        RuleCase{"KeyStartsWithDigit", RuntimeJob,
                 [](Job& j) {
                   j.labels = {{"1team", "ml"}};
                 },
                 "labels"},
        RuleCase{"KeyEmpty", RuntimeJob,
                 [](Job& j) {
                   j.labels = {{"", "ml"}};
                 },
                 "labels"},
        RuleCase{"Key63", RuntimeJob,
                 [](Job& j) {
                   j.labels = {{"k" + std::string(62, 'x'), "v"}};
                 },
                 ""},
        RuleCase{"Key64", RuntimeJob,
                 [](Job& j) {
                   j.labels = {{"k" + std::string(63, 'x'), "v"}};
                 },
                 "labels"},
        RuleCase{"ValueUppercase", RuntimeJob,
                 [](Job& j) {
                   j.labels = {{"team", "ML"}};
                 },
                 "labels"},
        RuleCase{"ValueWithDot", RuntimeJob,
                 [](Job& j) {
                   j.labels = {{"version", "1.2"}};
                 },
                 "labels"},
        RuleCase{"Value63", RuntimeJob,
                 [](Job& j) {
                   j.labels = {{"team", std::string(63, 'v')}};
                 },
                 ""},
        RuleCase{"Value64", RuntimeJob,
                 [](Job& j) {
                   j.labels = {{"team", std::string(64, 'v')}};
                 },
                 "labels"}),
    CaseName);

// The label rules alone, as label updates use them, agree with the full validation.
TEST(LabelRuleAlone, ReportsOnlyLabelProblems) {
  EXPECT_TRUE(validate::ValidateLabels({{"team", "ml"}, {"env", "prod-1"}}).empty());
  const std::vector<FieldViolation> found =
      validate::ValidateLabels({{"Team", "ml"}, {"env", "1.2"}});
  ASSERT_EQ(found.size(), 2u);
  for (const FieldViolation& violation : found) {
    EXPECT_EQ(violation.field, "labels");
  }
}

TEST(JobIdRule, FollowsTheSeedRule) {
  EXPECT_TRUE(validate::IsValidJobId("census_1"));
  EXPECT_TRUE(validate::IsValidJobId(std::string(128, 'a')));
  EXPECT_FALSE(validate::IsValidJobId(std::string(129, 'a')));
  EXPECT_FALSE(validate::IsValidJobId("1abc"));
  EXPECT_FALSE(validate::IsValidJobId("my-job"));
  EXPECT_FALSE(validate::IsValidJobId(""));
}

}  // namespace
}  // namespace trainyard::validate::testing
