#include "validate/rule_case.h"

namespace trainyard::validate::testing {
namespace {

using model::DiskConfig;
using model::Job;

class DiskRules : public RuleTest {};
TEST_P(DiskRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

// docs/reference/ai-platform-training.md §2.3/§2.8 #16.
INSTANTIATE_TEST_SUITE_P(
    Disk, DiskRules,
    ::testing::Values(RuleCase{"Defaults", RuntimeJob,
                               [](Job& j) { Master(j).disk_config = DiskConfig{}; }, ""},
                      RuleCase{"SsdHundred", RuntimeJob,
                               [](Job& j) {
                                 Master(j).disk_config = DiskConfig{"pd-ssd", 100};
                               },
                               ""},
                      RuleCase{"StandardMax", RuntimeJob,
                               [](Job& j) {
                                 Master(j).disk_config = DiskConfig{"pd-standard", 64000};
                               },
                               ""},
                      RuleCase{"Balanced", RuntimeJob,
                               [](Job& j) {
                                 Master(j).disk_config = DiskConfig{"pd-balanced", 100};
                               },
                               "trainingInput.masterConfig.diskConfig.bootDiskType"},
                      RuleCase{"Negative", RuntimeJob,
                               [](Job& j) {
                                 Master(j).disk_config = DiskConfig{"pd-ssd", -1};
                               },
                               "trainingInput.masterConfig.diskConfig.bootDiskSizeGb"},
                      RuleCase{"OverMax", GpuJob,
                               [](Job& j) {
                                 ParameterServer(j).disk_config = DiskConfig{"pd-ssd", 64001};
                               },
                               "trainingInput.parameterServerConfig.diskConfig.bootDiskSizeGb"}),
    CaseName);

}  // namespace
}  // namespace trainyard::validate::testing
