#include "support/sample_jobs.h"
#include "validate/rule_case.h"

namespace trainyard::validate::testing {
namespace {

using model::Job;
using model::ScaleTier;

// TPU seed: the two custom-container examples (separate master and TPU worker images).
void TpuContainers(Job& job) {
  model::TrainingInput& input = In(job);
  trainyard::testing::DropPythonPackage(input);
  Master(job).image_uri = "gcr.io/your-project-id/your-master-image-name:your-master-tag-name";
  Worker(job).image_uri = "gcr.io/your-project-id/your-worker-image-name:your-worker-tag-name";
  Worker(job).tpu_tf_version = "2.2";
}

void BasicTpu(Job& job) {
  In(job).scale_tier = ScaleTier::kBasicTpu;
  In(job).runtime_version = "2.2";
}

class TpuRules : public RuleTest {};
TEST_P(TpuRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Layouts, TpuRules,
    ::testing::Values(
        RuleCase{"ComputeEngineMasterTpuV2", TpuJob, [](Job&) {}, ""},
        RuleCase{"ComputeEngineMasterTpuV3", TpuJob,
                 [](Job& j) { Worker(j).accelerator_config->type = "TPU_V3"; }, ""},
        RuleCase{"LegacyMasterPlainCloudTpu", TpuJob,
                 [](Job& j) {
                   In(j).master_type = "complex_model_m";
                   In(j).worker_config.reset();
                 },
                 ""},
        RuleCase{"BasicTpu", RuntimeJob, BasicTpu, ""},
        RuleCase{"BasicTpuInEuropeWest4", RuntimeJob,
                 [](Job& j) {
                   BasicTpu(j);
                   In(j).region = "europe-west4";
                 },
                 ""},
        RuleCase{"BasicTpuOutsideTpuRegions", RuntimeJob,
                 [](Job& j) {
                   BasicTpu(j);
                   In(j).region = "asia-east1";
                 },
                 "trainingInput.region"},
        RuleCase{"BasicTpuWithNonTpuRuntime", RuntimeJob,
                 [](Job& j) { In(j).scale_tier = ScaleTier::kBasicTpu; },
                 "trainingInput.runtimeVersion"},
        // TPU seed: workerCount exactly 1.
        RuleCase{"TwoTpuWorkers", TpuJob, [](Job& j) { In(j).worker_count = 2; },
                 "trainingInput.workerCount"},
        RuleCase{"ZeroTpuWorkers", TpuJob,
                 [](Job& j) {
                   In(j).worker_count = 0;
                   In(j).worker_config.reset();
                 },
                 "trainingInput.workerCount"},
        // TPU seed: no parameter servers with a Cloud TPU.
        RuleCase{"ParameterServers", TpuJob,
                 [](Job& j) {
                   In(j).parameter_server_type = "n1-highmem-8";
                   In(j).parameter_server_count = 1;
                 },
                 "trainingInput.parameterServerCount"},
        // docs/reference/ai-platform-training.md §4.1/§6: cloud_tpu is a worker type only.
        RuleCase{"CloudTpuMaster", TpuJob, [](Job& j) { In(j).master_type = "cloud_tpu"; },
                 "trainingInput.masterType"},
        RuleCase{"CloudTpuEvaluatorType", TpuJob,
                 [](Job& j) { In(j).evaluator_type = "cloud_tpu"; }, "trainingInput.evaluatorType"},
        // TPU seed: count 8, nothing else.
        RuleCase{"FourTpuCores", TpuJob, [](Job& j) { Worker(j).accelerator_config->count = 4; },
                 "trainingInput.workerConfig.acceleratorConfig.count"},
        RuleCase{"ThirtyTwoTpuCores", TpuJob,
                 [](Job& j) { Worker(j).accelerator_config->count = 32; },
                 "trainingInput.workerConfig.acceleratorConfig.count"}),
    CaseName);

// TPU seed: runtime versions 1.13, 1.14, 1.15, 2.1 and 2.2 run on Cloud TPU.
INSTANTIATE_TEST_SUITE_P(
    Runtimes, TpuRules,
    ::testing::Values(RuleCase{"Runtime113WithPython35", TpuJob,
                               [](Job& j) {
                                 In(j).runtime_version = "1.13";
                                 In(j).python_version = "3.5";
                               },
                               ""},
                      RuleCase{"Runtime21", TpuJob, [](Job& j) { In(j).runtime_version = "2.1"; },
                               ""},
                      RuleCase{"Runtime23", TpuJob, [](Job& j) { In(j).runtime_version = "2.3"; },
                               "trainingInput.runtimeVersion"},
                      RuleCase{"NoRuntime", TpuJob, [](Job& j) { In(j).runtime_version.clear(); },
                               "trainingInput.runtimeVersion"}),
    CaseName);

// TPU seed (custom container on a TPU worker) and docs/reference/ai-platform-training.md §2.3:
// tpuTfVersion.
INSTANTIATE_TEST_SUITE_P(
    TpuTfVersion, TpuRules,
    ::testing::Values(RuleCase{"SeedContainers", TpuJob, TpuContainers, ""},
                      RuleCase{"SeedContainersTpuV3", TpuJob,
                               [](Job& j) {
                                 TpuContainers(j);
                                 Worker(j).accelerator_config->type = "TPU_V3";
                               },
                               ""},
                      RuleCase{"WorkerInheritsMasterImage", TpuJob,
                               [](Job& j) {
                                 TpuContainers(j);
                                 Worker(j).image_uri.clear();
                               },
                               ""},
                      RuleCase{"Missing", TpuJob,
                               [](Job& j) {
                                 TpuContainers(j);
                                 Worker(j).tpu_tf_version.clear();
                               },
                               "trainingInput.workerConfig.tpuTfVersion"},
                      RuleCase{"NotATpuRuntime", TpuJob,
                               [](Job& j) {
                                 TpuContainers(j);
                                 Worker(j).tpu_tf_version = "2.11";
                               },
                               "trainingInput.workerConfig.tpuTfVersion"},
                      RuleCase{"UnknownVersion", TpuJob,
                               [](Job& j) {
                                 TpuContainers(j);
                                 Worker(j).tpu_tf_version = "2.2.0";
                               },
                               "trainingInput.workerConfig.tpuTfVersion"},
                      RuleCase{"OnRuntimeTpuWorker", TpuJob,
                               [](Job& j) { Worker(j).tpu_tf_version = "2.2"; },
                               "trainingInput.workerConfig.tpuTfVersion"},
                      RuleCase{"OnMaster", TpuJob,
                               [](Job& j) {
                                 TpuContainers(j);
                                 Master(j).tpu_tf_version = "2.2";
                               },
                               "trainingInput.masterConfig.tpuTfVersion"},
                      RuleCase{"OnGpuWorker", GpuJob,
                               [](Job& j) { Worker(j).tpu_tf_version = "2.2"; },
                               "trainingInput.workerConfig.tpuTfVersion"}),
    CaseName);

}  // namespace
}  // namespace trainyard::validate::testing
