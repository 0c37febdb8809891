// The bodies and refusals of `ai custom-jobs create` and `ai hp-tuning-jobs create`. Every
// expected body and message below is what gcloud 528 sent or printed for the same flags (the
// e2e test vertex_parity_test.py checks more combinations against gcloud itself).
#include "cli/commands/vertex_flags.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trainyard::cli {
namespace {

using nlohmann::json;

constexpr const char* kPool = "machine-type=n1-standard-4,container-image-uri=localhost/img:1";

// One `--worker-pool-spec` list that must be refused; `message` is gcloud's text after
// "ERROR: (gcloud.ai.custom-jobs.create) " (trainyard's where gcloud's names no key).
struct PoolRefusalCase {
  std::string name;
  std::vector<std::string> pools;
  std::string message;
};

class WorkerPoolRefusalTest : public ::testing::TestWithParam<PoolRefusalCase> {};

TEST_P(WorkerPoolRefusalTest, NamesTheKey) {
  const PoolRefusalCase& c = GetParam();
  auto parsed = ParseWorkerPoolFlags(c.pools);
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(parsed.status().message(), c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Gcloud528, WorkerPoolRefusalTest,
    ::testing::Values(
        PoolRefusalCase{
            "UnknownKey",
            {"machine-typo=n1-standard-4"},
            "argument --worker-pool-spec: valid keys are [accelerator-count, "
            "accelerator-type, container-image-uri, executor-image-uri, extra-dirs, "
            "extra-packages, local-package-path, machine-type, output-image-uri, "
            "python-module, replica-count, requirements, script]; received: machine-typo"},
        PoolRefusalCase{
            "NotAnInteger",
            {"machine-type=a,container-image-uri=b,replica-count=x"},
            "argument --worker-pool-spec: invalid value for key [replica-count]: 'x' is "
            "not an integer"},
        PoolRefusalCase{
            "NoMachineType",
            {"container-image-uri=a"},
            "Invalid value for [--worker-pool-spec]: Key [machine-type] required in dict "
            "arg but not provided."},
        PoolRefusalCase{
            "CountWithoutType",
            {std::string(kPool) + ",accelerator-count=2"},
            "Invalid value for [--worker-pool-spec]: Key [accelerator-type] required as "
            "[accelerator-count] is specified."},
        PoolRefusalCase{
            "LowerCaseAccelerator",
            {std::string(kPool) + ",accelerator-type=nvidia-tesla-t4"},
            "Invalid value for [--worker-pool-spec]: Found invalid value of "
            "[accelerator-type]: nvidia-tesla-t4. Available values are [NVIDIA_A100_80GB, "
            "NVIDIA_B200, NVIDIA_H100_80GB, NVIDIA_H100_MEGA_80GB, NVIDIA_H200_141GB, "
            "NVIDIA_L4, NVIDIA_TESLA_A100, NVIDIA_TESLA_K80, NVIDIA_TESLA_P100, "
            "NVIDIA_TESLA_P4, NVIDIA_TESLA_T4, NVIDIA_TESLA_V100, TPU_V2, TPU_V3, "
            "TPU_V4_POD, TPU_V5_LITEPOD]."},
        PoolRefusalCase{"NoImage",
                        {"machine-type=a"},
                        "Invalid value for [--worker-pool-spec]: Exactly one of keys "
                        "[executor-image-uri, container-image-uri] is required."},
        PoolRefusalCase{
            "ModuleWithContainer",
            {std::string(kPool) + ",python-module=m"},
            "Invalid value for [--worker-pool-spec]: Key [python-module] is not allowed "
            "together with key [container-image-uri]."},
        PoolRefusalCase{"ExecutorWithoutModule",
                        {"machine-type=a,executor-image-uri=e"},
                        "Invalid value for [--worker-pool-spec]: Key [python-module] is required."},
        PoolRefusalCase{
            "EmptyFirstPool",
            {"", kPool},
            "Invalid value for [--worker-pool-spec]: Empty value is not allowed for the "
            "first `--worker-pool-spec` flag."},
        PoolRefusalCase{
            "ScriptWithoutLocalPackage",
            {std::string(kPool) + ",script=x.py,requirements=a;b"},
            "Invalid value for [--worker-pool-spec]: Keys [requirements, script] are not "
            "allowed: Only allow to specify together with `local-package-path` in the "
            "first `--worker-pool-spec` flag."},
        PoolRefusalCase{"LocalPackageInALaterPool",
                        {kPool, std::string(kPool) + ",local-package-path=/src"},
                        "Invalid value for [--worker-pool-spec]: Key [local-package-path] is only "
                        "allowed in the first `--worker-pool-spec` flag."},
        PoolRefusalCase{
            "LocalPackageIsNotBuilt",
            {"machine-type=a,executor-image-uri=e,python-module=m,local-package-path=/s"},
            "Invalid value for [--worker-pool-spec]: Key [local-package-path] is not "
            "supported: trainyard builds no images; build and push the image yourself "
            "and give it as [container-image-uri]."},
        PoolRefusalCase{"BadDictSyntax",
                        {"machine-type"},
                        "argument --worker-pool-spec: Bad syntax for dict arg: [machine-type]. "
                        "Expected KEY=VALUE pairs separated by commas."},
        // Hardware is checked in every pool before software in any.
        PoolRefusalCase{
            "HardwareFirst",
            {"machine-type=a", "container-image-uri=b"},
            "Invalid value for [--worker-pool-spec]: Key [machine-type] required in dict "
            "arg but not provided."}),
    [](const auto& tc) { return tc.param.name; });

json CustomBody(const CustomJobFlags& flags, const std::optional<std::string>& config = {}) {
  auto body = CustomJobRequestBody(flags, config, "job.yaml");
  EXPECT_TRUE(body.ok()) << body.status().ToString();
  return body.ok() ? json::parse(*body) : json();
}

TEST(CustomJobRequestBody, IsGcloudsForAContainerPool) {
  const CustomJobFlags flags{
      .common = {.display_name = "j1", .labels = {"k=v,a=b"}},
      .worker_pool_specs = {"machine-type=n1-standard-4,replica-count=2,accelerator-type="
                            "NVIDIA_TESLA_T4,accelerator-count=1,container-image-uri=localhost/"
                            "img:1"},
      .args = {"a,b"}};
  EXPECT_EQ(CustomBody(flags), json::parse(R"({"displayName": "j1", "jobSpec": {"workerPoolSpecs":
      [{"containerSpec": {"args": ["a", "b"], "imageUri": "localhost/img:1"}, "machineSpec":
      {"acceleratorCount": 1, "acceleratorType": "NVIDIA_TESLA_T4", "machineType":
      "n1-standard-4"}, "replicaCount": "2"}]}, "labels": {"a": "b", "k": "v"}})"));
}

TEST(CustomJobRequestBody, IsGcloudsForAPythonPackagePool) {
  const CustomJobFlags flags{
      .common = {.display_name = "j2"},
      .worker_pool_specs = {"machine-type=n1-standard-4,executor-image-uri=ex:1,python-module=t"},
      .args = {"--lr=0.1"},
      .command = {"ignored,by,python,pools"},
      .python_package_uris = {"gs://old/x.tar.gz", "gs://b/p.tar.gz,gs://b/q.tar.gz"}};
  EXPECT_EQ(CustomBody(flags), json::parse(R"({"displayName": "j2", "jobSpec": {"workerPoolSpecs":
      [{"machineSpec": {"machineType": "n1-standard-4"}, "pythonPackageSpec": {"args":
      ["--lr=0.1"], "executorImageUri": "ex:1", "packageUris": ["gs://b/p.tar.gz",
      "gs://b/q.tar.gz"], "pythonModule": "t"}, "replicaCount": "1"}]}})"));
}

TEST(CustomJobRequestBody, FlagPoolsReplaceTheConfigsAndTheRestOfItStays) {
  const CustomJobFlags flags{.common = {.display_name = "o",
                                        .service_account = "sa@p.iam.gserviceaccount.com",
                                        .network = "",
                                        .enable_web_access = true},
                             .worker_pool_specs = {kPool, ""},
                             .command = {"sh,-c", "run"}};
  const json body = CustomBody(flags, std::string(R"(
workerPoolSpecs:
- machineSpec: {machineType: n1-standard-8}
  containerSpec: {imageUri: other}
scheduling: {timeout: 60s}
)"));
  EXPECT_EQ(body["jobSpec"], json::parse(R"({"enableWebAccess": true, "network": "",
      "scheduling": {"timeout": "60s"}, "serviceAccount": "sa@p.iam.gserviceaccount.com",
      "workerPoolSpecs": [{"containerSpec": {"command": ["sh", "-c", "run"], "imageUri":
      "localhost/img:1"}, "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1"},
      {}]})"));
}

TEST(CustomJobRequestBody, RefusesAConfigPoolWithoutSoftware) {
  auto body = CustomJobRequestBody({.common = {.display_name = "x"}},
                                   std::string("workerPoolSpecs:\n- replicaCount: 1\n"), "c.yaml");
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().message(),
            "Invalid value for [--config]: Exactly one of fields [pythonPackageSpec, "
            "containerSpec] is required for a [workerPoolSpecs] in the YAML config file.");
}

TEST(CustomJobRequestBody, NeedsAConfigOrAPool) {
  auto body = CustomJobRequestBody({.common = {.display_name = "x"}}, std::nullopt, "");
  ASSERT_FALSE(body.ok());
  EXPECT_EQ(body.status().message(), "argument (--config --worker-pool-spec): Must be specified.");
}

TEST(CustomJobRequestBody, ChecksTheServiceAccountAndTheLabels) {
  for (const CustomJobFlags& flags :
       {CustomJobFlags{.common = {.service_account = "x@y"}, .worker_pool_specs = {kPool}},
        CustomJobFlags{.common = {.labels = {"Team=a"}}, .worker_pool_specs = {kPool}}}) {
    auto body = CustomJobRequestBody(flags, std::nullopt, "");
    ASSERT_FALSE(body.ok());
    EXPECT_TRUE(body.status().message().starts_with("argument --")) << body.status().message();
  }
}

constexpr const char* kStudy = R"(
studySpec:
  metrics: [{metricId: accuracy, goal: MAXIMIZE}]
  parameters:
  - {parameterId: layers, integerValueSpec: {minValue: 1, maxValue: 4}}
trialJobSpec:
  workerPoolSpecs:
  - {machineSpec: {machineType: n1-standard-4}, replicaCount: 1, containerSpec: {imageUri: i}}
)";

// The counts of an hp-tuning body from the file's and the flags' (gcloud's client.py `Create`).
struct CountCase {
  std::string name;
  std::string file_counts;  // YAML lines added to kStudy
  std::optional<std::string> max_trials;
  std::optional<std::string> parallel_trials;
  int want_max;
  int want_parallel;
};

class HpTuningCountsTest : public ::testing::TestWithParam<CountCase> {};

TEST_P(HpTuningCountsTest, FollowGcloud) {
  const CountCase& c = GetParam();
  auto body = HpTuningJobRequestBody({.common = {.display_name = "h"},
                                      .max_trial_count = c.max_trials,
                                      .parallel_trial_count = c.parallel_trials},
                                     std::string(kStudy) + c.file_counts, "hp.yaml");
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  const json job = json::parse(*body);
  EXPECT_EQ(job["maxTrialCount"], c.want_max);
  EXPECT_EQ(job["parallelTrialCount"], c.want_parallel);
}

INSTANTIATE_TEST_SUITE_P(
    Gcloud528, HpTuningCountsTest,
    ::testing::Values(CountCase{"NeitherGivesOne", "", std::nullopt, std::nullopt, 1, 1},
                      CountCase{"FlagsWin", "maxTrialCount: 9\n", "4", "2", 4, 2},
                      CountCase{"FileWhenNoFlag", "maxTrialCount: 9\nparallelTrialCount: 3\n",
                                std::nullopt, std::nullopt, 9, 3},
                      CountCase{"ZeroFlagKeepsTheFile", "maxTrialCount: 9\n", "0", std::nullopt, 9,
                                1}),
    [](const auto& tc) { return tc.param.name; });

TEST(HpTuningJobRequestBody, PutsTheFlagsWhereGcloudDoes) {
  auto body = HpTuningJobRequestBody({.common = {.display_name = "h2",
                                                 .labels = {"a=b"},
                                                 .service_account = "sa@p.iam.gserviceaccount.com",
                                                 .network = "n",
                                                 .enable_web_access = true},
                                      .max_failed_trial_count = "3",
                                      .algorithm = "grid-search"},
                                     kStudy, "hp.yaml");
  ASSERT_TRUE(body.ok()) << body.status().ToString();
  const json job = json::parse(*body);
  EXPECT_EQ(job["displayName"], "h2");
  EXPECT_EQ(job["labels"], json::parse(R"({"a": "b"})"));
  EXPECT_EQ(job["maxFailedTrialCount"], 3);
  EXPECT_EQ(job["studySpec"]["algorithm"], "GRID_SEARCH");
  EXPECT_EQ(job["studySpec"]["parameters"][0]["integerValueSpec"]["maxValue"], "4");
  EXPECT_EQ(job["trialJobSpec"]["network"], "n");
  EXPECT_EQ(job["trialJobSpec"]["serviceAccount"], "sa@p.iam.gserviceaccount.com");
  EXPECT_EQ(job["trialJobSpec"]["enableWebAccess"], true);
  EXPECT_EQ(job["trialJobSpec"]["workerPoolSpecs"][0]["replicaCount"], "1");
}

TEST(HpTuningJobRequestBody, MakesATrialSpecForTheFlagsAndLeavesANonObjectToTheServer) {
  const HpTuningJobFlags flags{.common = {.network = "n"}};
  auto made = HpTuningJobRequestBody(flags, "displayName: d\n", "hp.yaml");
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  EXPECT_EQ(json::parse(*made)["trialJobSpec"], json::parse(R"({"network": "n"})"));
  auto kept = HpTuningJobRequestBody(flags, "trialJobSpec: text\n", "hp.yaml");
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(json::parse(*kept)["trialJobSpec"], "text");
}

TEST(HpTuningJobRequestBody, RefusesAnUnknownAlgorithmAndANonInteger) {
  auto algorithm = HpTuningJobRequestBody({.algorithm = "bayes"}, kStudy, "hp.yaml");
  ASSERT_FALSE(algorithm.ok());
  EXPECT_EQ(algorithm.status().message(),
            "argument --algorithm: Invalid choice: 'bayes'.\nValid choices are "
            "[algorithm-unspecified, grid-search, random-search].");
  auto count = HpTuningJobRequestBody({.parallel_trial_count = "two"}, kStudy, "hp.yaml");
  ASSERT_FALSE(count.ok());
  EXPECT_EQ(count.status().message(), "argument --parallel-trial-count: invalid int value: 'two'");
}

}  // namespace
}  // namespace trainyard::cli
