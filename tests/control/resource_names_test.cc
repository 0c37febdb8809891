#include "control/resource_names.h"

#include <string>

#include <gtest/gtest.h>

#include "model/project_id.h"

namespace trainyard::control {
namespace {

struct IdCase {
  std::string name;
  std::string id;
  bool valid;
};

class ProjectIdTest : public ::testing::TestWithParam<IdCase> {};

TEST_P(ProjectIdTest, IsAcceptedOnlyWhenWellFormed) {
  EXPECT_EQ(model::IsValidProjectId(GetParam().id), GetParam().valid);
  const auto violation = CheckProjectId(GetParam().id, "parent");
  EXPECT_EQ(violation.has_value(), !GetParam().valid);
  if (violation.has_value()) {
    EXPECT_EQ(violation->field, "parent");
  }
}

INSTANTIATE_TEST_SUITE_P(
    Ids, ProjectIdTest,
    ::testing::Values(IdCase{"Plain", "my-project", true}, IdCase{"Number", "123456789", true},
                      IdCase{"DomainScoped", "example.com:my-project", true},
                      IdCase{"Single", "p", true}, IdCase{"Longest", std::string(100, 'a'), true},
                      IdCase{"Empty", "", false}, IdCase{"TooLong", std::string(101, 'a'), false},
                      IdCase{"DotDot", "..", false}, IdCase{"Traversal", "../etc", false},
                      IdCase{"Slash", "a/b", false}, IdCase{"Nul", std::string("a\0b", 3), false},
                      IdCase{"Newline", "proj\n", false}, IdCase{"Space", "my project", false},
                      IdCase{"LeadingDash", "-proj", false}, IdCase{"Percent", "a%2Fb", false}),
    [](const auto& tc) { return tc.param.name; });

class JobIdTest : public ::testing::TestWithParam<IdCase> {};

TEST_P(JobIdTest, FollowsTheNamingRule) {
  const auto violation = CheckJobIdInName(GetParam().id);
  EXPECT_EQ(violation.has_value(), !GetParam().valid);
  if (violation.has_value()) {
    EXPECT_EQ(violation->field, "name");
  }
}

INSTANTIATE_TEST_SUITE_P(  // docs/reference/ai-platform-training.md §7.7
    Ids, JobIdTest,
    ::testing::Values(IdCase{"Plain", "job_1", true}, IdCase{"MixedCase", "Census_RNN_2", true},
                      IdCase{"Single", "j", true}, IdCase{"Longest", std::string(128, 'j'), true},
                      IdCase{"Empty", "", false}, IdCase{"TooLong", std::string(129, 'j'), false},
                      IdCase{"LeadingDigit", "1job", false},
                      IdCase{"LeadingUnderscore", "_job", false}, IdCase{"Dash", "job-1", false},
                      IdCase{"Slash", "job/1", false}, IdCase{"DotDot", "..", false},
                      IdCase{"Nul", std::string("job\0", 4), false},
                      IdCase{"NonAscii", "j\xc3\xa9", false}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::control
