#include "validate/rule_case.h"

namespace trainyard::validate::testing {
namespace {

using model::Job;
using model::ScaleTier;

void Tier(Job& job, ScaleTier tier) {
  In(job).scale_tier = tier;
}

class ScaleTierRules : public RuleTest {};
TEST_P(ScaleTierRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

// docs/reference/ai-platform-training.md §3: predefined tiers choose the cluster; *Type, *Count and
// acceleratorConfig need CUSTOM.
INSTANTIATE_TEST_SUITE_P(
    Predefined, ScaleTierRules,
    ::testing::Values(
        RuleCase{"Basic", RuntimeJob, [](Job&) {}, ""},
        RuleCase{"Standard1", RuntimeJob, [](Job& j) { Tier(j, ScaleTier::kStandard1); }, ""},
        RuleCase{"Premium1", RuntimeJob, [](Job& j) { Tier(j, ScaleTier::kPremium1); }, ""},
        RuleCase{"BasicGpu", RuntimeJob, [](Job& j) { Tier(j, ScaleTier::kBasicGpu); }, ""},
        RuleCase{"BasicMasterType", RuntimeJob, [](Job& j) { In(j).master_type = "n1-standard-4"; },
                 "trainingInput.masterType"},
        RuleCase{"Standard1WorkerType", RuntimeJob,
                 [](Job& j) {
                   Tier(j, ScaleTier::kStandard1);
                   In(j).worker_type = "n1-highcpu-16";
                 },
                 "trainingInput.workerType"},
        RuleCase{"BasicWorkerCount", RuntimeJob, [](Job& j) { In(j).worker_count = 2; },
                 "trainingInput.workerCount"},
        RuleCase{"BasicParameterServerCount", RuntimeJob,
                 [](Job& j) { In(j).parameter_server_count = 1; },
                 "trainingInput.parameterServerCount"},
        RuleCase{"BasicEvaluatorTypeAndCount", RuntimeJob,
                 [](Job& j) {
                   In(j).evaluator_type = "n1-standard-4";
                   In(j).evaluator_count = 1;
                 },
                 "trainingInput.evaluatorType,trainingInput.evaluatorCount"},
        RuleCase{"BasicGpuAcceleratorConfig", RuntimeJob,
                 [](Job& j) {
                   Tier(j, ScaleTier::kBasicGpu);
                   Master(j).accelerator_config = model::AcceleratorConfig{1, "NVIDIA_TESLA_T4"};
                 },
                 "trainingInput.masterConfig.acceleratorConfig"},
        // GPU seed: BASIC_GPU is one K80, so its region must offer K80.
        RuleCase{"BasicGpuWithoutK80InRegion", RuntimeJob,
                 [](Job& j) {
                   Tier(j, ScaleTier::kBasicGpu);
                   In(j).region = "europe-west2";
                 },
                 "trainingInput.region"},
        RuleCase{"BasicGpuWithContainerImage", ContainerJob,
                 [](Job& j) { Tier(j, ScaleTier::kBasicGpu); }, ""}),
    CaseName);

// docs/reference/ai-platform-training.md §2.2/§2.8 #6: CUSTOM needs masterType; a positive count
// needs its type.
INSTANTIATE_TEST_SUITE_P(
    Custom, ScaleTierRules,
    ::testing::Values(
        RuleCase{"GpuSeedConfig", GpuJob, [](Job&) {}, ""},
        RuleCase{"NoMasterType", GpuJob, [](Job& j) { In(j).master_type.clear(); },
                 "trainingInput.masterType"},
        RuleCase{"NoMasterTypeWithoutReplicas", RuntimeJob,
                 [](Job& j) { Tier(j, ScaleTier::kCustom); }, "trainingInput.masterType"},
        RuleCase{"WorkerCountWithoutType", GpuJob,
                 [](Job& j) {
                   In(j).worker_type.clear();
                   In(j).worker_config.reset();
                 },
                 "trainingInput.workerType"},
        RuleCase{"ParameterServerCountWithoutType", GpuJob,
                 [](Job& j) { In(j).parameter_server_type.clear(); },
                 "trainingInput.parameterServerType"},
        RuleCase{"EvaluatorCountWithoutType", GpuJob, [](Job& j) { In(j).evaluator_count = 1; },
                 "trainingInput.evaluatorType"},
        RuleCase{"EvaluatorTypeWithoutCount", GpuJob,
                 [](Job& j) { In(j).evaluator_type = "n1-standard-8"; }, ""},
        RuleCase{"NegativeWorkerCount", GpuJob, [](Job& j) { In(j).worker_count = -1; },
                 "trainingInput.workerCount"},
        RuleCase{"ThousandWorkers", GpuJob, [](Job& j) { In(j).worker_count = 1000; }, ""},
        RuleCase{"ThousandAndOneWorkers", GpuJob, [](Job& j) { In(j).worker_count = 1001; },
                 "trainingInput.workerCount"},
        RuleCase{"NegativeEvaluatorCount", GpuJob, [](Job& j) { In(j).evaluator_count = -3; },
                 "trainingInput.evaluatorCount"}),
    CaseName);

}  // namespace
}  // namespace trainyard::validate::testing
