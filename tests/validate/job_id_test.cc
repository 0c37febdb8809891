#include <string>

#include "validate/rule_case.h"

namespace trainyard::validate::testing {
namespace {

using model::Job;

class JobIdRules : public RuleTest {};
TEST_P(JobIdRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

// Overview seed (job ids) and docs/reference/ai-platform-training.md §2.8 #1:
// ^[A-Za-z][A-Za-z0-9_]{0,127}$.
INSTANTIATE_TEST_SUITE_P(
    Seed, JobIdRules,
    ::testing::Values(
        RuleCase{"MixedCaseDigitsUnderscore", RuntimeJob, [](Job& j) { j.job_id = "Mixed_Case_9"; },
                 ""},
        RuleCase{"OneLetter", RuntimeJob, [](Job& j) { j.job_id = "a"; }, ""},
        RuleCase{"MaxLength128", RuntimeJob, [](Job& j) { j.job_id = "j" + std::string(127, '0'); },
                 ""},
        RuleCase{"Length129", RuntimeJob, [](Job& j) { j.job_id = "j" + std::string(128, '0'); },
                 "jobId"},
        RuleCase{"Missing", RuntimeJob, [](Job& j) { j.job_id.clear(); }, "jobId"},
        RuleCase{"Hyphen", RuntimeJob, [](Job& j) { j.job_id = "my-job"; }, "jobId"},
        RuleCase{"StartsWithDigit", RuntimeJob, [](Job& j) { j.job_id = "1abc"; }, "jobId"},
        RuleCase{"StartsWithUnderscore", RuntimeJob, [](Job& j) { j.job_id = "_abc"; }, "jobId"},
        RuleCase{"Space", RuntimeJob, [](Job& j) { j.job_id = "a b"; }, "jobId"},
        RuleCase{"NonAscii", RuntimeJob,
                 [](Job& j) {
                   j.job_id =
                       "t\xc3\xa2"
                       "che";
                 },
                 "jobId"}),
    CaseName);

}  // namespace
}  // namespace trainyard::validate::testing
