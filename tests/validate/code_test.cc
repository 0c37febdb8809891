#include <string>

#include "validate/rule_case.h"

namespace trainyard::validate::testing {
namespace {

using model::Job;

void Packages(Job& job, int n) {
  In(job).package_uris.clear();
  for (int i = 0; i < n; ++i) {
    In(job).package_uris.push_back("gs://my-bucket/pkg-" + std::to_string(i) + ".tar.gz");
  }
}

class CodeRules : public RuleTest {};
TEST_P(CodeRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

// docs/reference/ai-platform-training.md §2.2/§2.8 #4: a runtime job needs packages (1-100) and a
// module.
INSTANTIATE_TEST_SUITE_P(
    Packages, CodeRules,
    ::testing::Values(
        RuleCase{"Baseline", RuntimeJob, [](Job&) {}, ""},
        RuleCase{"NoPackages", RuntimeJob, [](Job& j) { In(j).package_uris.clear(); },
                 "trainingInput.packageUris"},
        RuleCase{"HundredPackages", RuntimeJob, [](Job& j) { Packages(j, 100); }, ""},
        RuleCase{"HundredAndOnePackages", RuntimeJob, [](Job& j) { Packages(j, 101); },
                 "trainingInput.packageUris"},
        RuleCase{"LocalAbsolutePath", RuntimeJob,
                 [](Job& j) { In(j).package_uris = {"/srv/packages/trainer-0.1.tar.gz"}; }, ""},
        RuleCase{"RelativePath", RuntimeJob,
                 [](Job& j) { In(j).package_uris = {"dist/trainer-0.1.tar.gz"}; },
                 "trainingInput.packageUris[0]"},
        RuleCase{
            "HttpUri", RuntimeJob,
            [](Job& j) { In(j).package_uris.push_back("https://example.com/trainer-0.1.tar.gz"); },
            "trainingInput.packageUris[1]"},
        RuleCase{"BucketWithoutObject", RuntimeJob,
                 [](Job& j) { In(j).package_uris = {"gs://my-bucket/"}; },
                 "trainingInput.packageUris[0]"},
        RuleCase{"UppercaseBucket", RuntimeJob,
                 [](Job& j) { In(j).package_uris = {"gs://My-Bucket/pkg.tar.gz"}; },
                 "trainingInput.packageUris[0]"},
        RuleCase{"NoModule", RuntimeJob, [](Job& j) { In(j).python_module.clear(); },
                 "trainingInput.pythonModule"},
        RuleCase{"SingleModule", RuntimeJob, [](Job& j) { In(j).python_module = "task"; }, ""},
        RuleCase{
            "DeepModule", RuntimeJob,
            [](Job& j) { In(j).python_module = "official.vision.image_classification.mnist_main"; },
            ""},
        RuleCase{"ModuleAsFilePath", RuntimeJob,
                 [](Job& j) { In(j).python_module = "trainer/task.py"; },
                 "trainingInput.pythonModule"},
        RuleCase{"ModuleWithEmptyPart", RuntimeJob,
                 [](Job& j) { In(j).python_module = "trainer..task"; },
                 "trainingInput.pythonModule"},
        RuleCase{"ModuleStartingWithDigit", RuntimeJob,
                 [](Job& j) { In(j).python_module = "trainer.2task"; },
                 "trainingInput.pythonModule"}),
    CaseName);

// docs/reference/ai-platform-training.md §2.2: jobDir is a gs:// path (absolute local paths:
// trainyard extension).
INSTANTIATE_TEST_SUITE_P(
    JobDir, CodeRules,
    ::testing::Values(
        RuleCase{"BucketOnly", RuntimeJob, [](Job& j) { In(j).job_dir = "gs://my-bucket"; }, ""},
        RuleCase{"Local", RuntimeJob, [](Job& j) { In(j).job_dir = "/var/lib/jobs/out"; }, ""},
        RuleCase{"Unset", RuntimeJob, [](Job& j) { In(j).job_dir.clear(); }, ""},
        RuleCase{"NoScheme", RuntimeJob, [](Job& j) { In(j).job_dir = "my-bucket/out"; },
                 "trainingInput.jobDir"},
        RuleCase{"S3", RuntimeJob, [](Job& j) { In(j).job_dir = "s3://my-bucket/out"; },
                 "trainingInput.jobDir"}),
    CaseName);

// docs/reference/ai-platform-training.md §2.2/§2.8 #5 and #12: runtime and Python versions.
INSTANTIATE_TEST_SUITE_P(
    Versions, CodeRules,
    ::testing::Values(
        RuleCase{"NoRuntimeUsesDefault", RuntimeJob, [](Job& j) { In(j).runtime_version.clear(); },
                 ""},
        RuleCase{"UnknownRuntime", RuntimeJob, [](Job& j) { In(j).runtime_version = "3.0"; },
                 "trainingInput.runtimeVersion"},
        RuleCase{"Python27OnRuntime115", RuntimeJob,
                 [](Job& j) {
                   In(j).runtime_version = "1.15";
                   In(j).python_version = "2.7";
                 },
                 ""},
        RuleCase{"Python27OnRuntime211", RuntimeJob, [](Job& j) { In(j).python_version = "2.7"; },
                 "trainingInput.pythonVersion"},
        RuleCase{"Python35OnRuntime114", RuntimeJob,
                 [](Job& j) {
                   In(j).runtime_version = "1.14";
                   In(j).python_version = "3.5";
                 },
                 ""},
        RuleCase{"Python37OnRuntime114", RuntimeJob,
                 [](Job& j) {
                   In(j).runtime_version = "1.14";
                   In(j).python_version = "3.7";
                 },
                 "trainingInput.pythonVersion"},
        RuleCase{"PythonWithoutRuntime", RuntimeJob, [](Job& j) { In(j).runtime_version.clear(); },
                 ""},
        RuleCase{"UnknownPythonWithoutRuntime", RuntimeJob,
                 [](Job& j) {
                   In(j).runtime_version.clear();
                   In(j).python_version = "3.9";
                 },
                 "trainingInput.pythonVersion"},
        RuleCase{"ContainerNeedsNoPackages", ContainerJob, [](Job&) {}, ""},
        RuleCase{"ContainerWithRuntime", ContainerJob,
                 [](Job& j) { In(j).runtime_version = "2.11"; }, "trainingInput.runtimeVersion"},
        RuleCase{"ContainerWithPython", ContainerJob, [](Job& j) { In(j).python_version = "3.7"; },
                 "trainingInput.pythonVersion"},
        RuleCase{"ContainerWithBadPackage", ContainerJob,
                 [](Job& j) { In(j).package_uris = {"pkg.tar.gz"}; },
                 "trainingInput.packageUris[0]"}),
    CaseName);

}  // namespace
}  // namespace trainyard::validate::testing
