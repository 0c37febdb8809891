#include "validate/rule_case.h"

namespace trainyard::validate::testing {
namespace {

using model::Job;

class MachineRules : public RuleTest {};
TEST_P(MachineRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

// docs/reference/ai-platform-training.md §4.1/§4.2: machine types are known; §2.2/§2.8 #7: worker,
// ps and evaluator types in the master's category (Compute Engine or legacy).
INSTANTIATE_TEST_SUITE_P(
    Catalog, MachineRules,
    ::testing::Values(
        RuleCase{"LegacySeedConfig", LegacyJob, [](Job&) {}, ""},
        RuleCase{"UnknownMasterType", GpuJob, [](Job& j) { SingleMaster(j, "n1-standard-1"); },
                 "trainingInput.masterType"},
        RuleCase{"UnknownWorkerType", GpuJob, [](Job& j) { In(j).worker_type = "n1-ultra-9000"; },
                 "trainingInput.workerType"},
        RuleCase{"HighcpuEightIsNotOffered", GpuJob,
                 [](Job& j) { In(j).parameter_server_type = "n1-highcpu-8"; },
                 "trainingInput.parameterServerType"},
        RuleCase{"LegacyParameterServerWithComputeEngineMaster", GpuJob,
                 [](Job& j) { In(j).parameter_server_type = "large_model"; },
                 "trainingInput.parameterServerType"},
        RuleCase{"ComputeEngineWorkerWithLegacyMaster", LegacyJob,
                 [](Job& j) { In(j).worker_type = "n1-standard-16"; }, "trainingInput.workerType"},
        RuleCase{"LegacyEvaluatorWithComputeEngineMaster", GpuJob,
                 [](Job& j) {
                   In(j).evaluator_type = "complex_model_s";
                   In(j).evaluator_count = 1;
                 },
                 "trainingInput.evaluatorType"},
        RuleCase{"ComputeEngineEvaluatorWithComputeEngineMaster", GpuJob,
                 [](Job& j) {
                   In(j).evaluator_type = "n1-standard-4";
                   In(j).evaluator_count = 1;
                 },
                 ""},
        RuleCase{"A2MasterWithN1Workers", GpuJob,
                 [](Job& j) {
                   In(j).master_type = "a2-highgpu-1g";
                   Master(j).accelerator_config.reset();
                 },
                 ""},
        RuleCase{"UnknownMasterSkipsCategoryRule", LegacyJob,
                 [](Job& j) { In(j).master_type = "mystery"; }, "trainingInput.masterType"}),
    CaseName);

}  // namespace
}  // namespace trainyard::validate::testing
