#include "validate/rule_case.h"

namespace trainyard::validate::testing {
namespace {

using model::Job;

class ContainerRules : public RuleTest {};
TEST_P(ContainerRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

// docs/reference/ai-platform-training.md §2.2/§2.3/§2.8 #10: images, containerCommand and
// containerArgs.
INSTANTIATE_TEST_SUITE_P(
    Containers, ContainerRules,
    ::testing::Values(
        RuleCase{"CommandAndArgs", ContainerJob,
                 [](Job& j) {
                   Master(j).container_command = {"python", "-m", "trainer.task"};
                   Master(j).container_args = {"--epochs=3"};
                 },
                 ""},
        RuleCase{"TrainingArgsAlone", ContainerJob, [](Job& j) { In(j).args = {"--epochs=3"}; },
                 ""},
        RuleCase{"CommandWithoutImage", RuntimeJob,
                 [](Job& j) { Master(j).container_command = {"python"}; },
                 "trainingInput.masterConfig.containerCommand"},
        RuleCase{"ArgsWithoutImage", GpuJob, [](Job& j) { Worker(j).container_args = {"-v"}; },
                 "trainingInput.workerConfig.containerArgs"},
        RuleCase{"ArgsWithTrainingArgs", ContainerJob,
                 [](Job& j) {
                   Master(j).container_args = {"--epochs=3"};
                   In(j).args = {"--batch=8"};
                 },
                 "trainingInput.masterConfig.containerArgs"},
        RuleCase{"WorkerCommandWithInheritedImage", GpuJob,
                 [](Job& j) {
                   In(j).package_uris.clear();
                   In(j).python_module.clear();
                   In(j).runtime_version.clear();
                   In(j).python_version.clear();
                   Master(j).image_uri = "gcr.io/my-project/trainer:1";
                   Worker(j).container_command = {"/bin/worker"};
                 },
                 ""},
        RuleCase{"WorkerImageWithMasterImage", GpuJob,
                 [](Job& j) {
                   In(j).package_uris.clear();
                   In(j).python_module.clear();
                   In(j).runtime_version.clear();
                   In(j).python_version.clear();
                   Master(j).image_uri = "gcr.io/my-project/trainer:1";
                   Worker(j).image_uri = "gcr.io/my-project/worker:1";
                 },
                 ""},
        RuleCase{"WorkerImageOnRuntimeJob", GpuJob,
                 [](Job& j) { Worker(j).image_uri = "gcr.io/my-project/worker:1"; },
                 "trainingInput.workerConfig.imageUri"},
        RuleCase{"ParameterServerImageOnRuntimeJob", GpuJob,
                 [](Job& j) { ParameterServer(j).image_uri = "gcr.io/my-project/ps:1"; },
                 "trainingInput.parameterServerConfig.imageUri"}),
    CaseName);

}  // namespace
}  // namespace trainyard::validate::testing
