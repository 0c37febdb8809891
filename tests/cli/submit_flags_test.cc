#include "cli/commands/submit_flags.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "catalog/catalog.h"
#include "cli/commands/request_body.h"
#include "model/config_file.h"

namespace trainyard::cli {
namespace {

using Edit = std::function<void(RawTrainingFlags&)>;

RawTrainingFlags BaseFlags() {
  RawTrainingFlags raw;
  raw.job_id = "j1";
  raw.project = "p";
  raw.region = "us-central1";
  return raw;
}

// The create body trainyard would send for `config` (YAML, may be empty) and the edited flags;
// gs:// `--packages` stand in for the staged package URIs.
nlohmann::json Body(const std::string& config, const Edit& edit) {
  model::Job base;
  if (!config.empty()) {
    auto parsed = model::ParseConfigText(config, "config.yaml");
    EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
    if (parsed.ok()) {
      base = *parsed;
    }
  }
  RawTrainingFlags raw = BaseFlags();
  edit(raw);
  auto flags = ParseTrainingFlags(raw, catalog::Catalog::Builtin());
  EXPECT_TRUE(flags.ok()) << flags.status().ToString();
  if (!flags.ok()) {
    return nullptr;
  }
  model::Job job = ApplyTrainingFlags(base, *flags, flags->packages);
  return nlohmann::json::parse(CreateJobRequestBody(job, ExplicitFieldsOf(*flags)));
}

struct MappingCase {
  std::string name;
  std::string config;
  Edit edit;
  std::string expected;  // JSON, compared as parsed values
};

class FlagMappingTest : public ::testing::TestWithParam<MappingCase> {};

TEST_P(FlagMappingTest, BuildsTheBodyGcloudSends) {
  const MappingCase& c = GetParam();
  EXPECT_EQ(Body(c.config, c.edit), nlohmann::json::parse(c.expected));
}

constexpr const char* kRuntimeConfig = R"(
jobId: from_file
labels: {team: a}
trainingInput:
  scaleTier: CUSTOM
  masterType: n1-standard-8
  masterConfig: {imageUri: gcr.io/p/m}
  packageUris: [gs://bkt1/from-file.tar.gz]
  args: [--from-file]
  region: europe-west4
  enableWebAccess: true
)";

INSTANTIATE_TEST_SUITE_P(
    Flags, FlagMappingTest,
    ::testing::Values(
        MappingCase{"MinimalRuntimeJob", "",
                    [](RawTrainingFlags& f) {
                      f.packages = "gs://bkt1/a.tar.gz";
                      f.module_name = "trainer.task";
                    },
                    R"({"jobId":"j1","trainingInput":{"packageUris":["gs://bkt1/a.tar.gz"],
                        "pythonModule":"trainer.task","region":"us-central1",
                        "enableWebAccess":false}})"},
        MappingCase{"EveryScalarFlag", "",
                    [](RawTrainingFlags& f) {
                      f.runtime_version = "2.11";
                      f.python_version = "3.7";
                      f.service_account = "sa@p.iam.gserviceaccount.com";
                      f.network = "projects/1/global/networks/n";
                      f.job_dir = "gs://bkt1/out";
                      f.enable_web_access = true;
                      f.scale_tier = "premium-1";
                    },
                    R"({"jobId":"j1","trainingInput":{"scaleTier":"PREMIUM_1",
                        "region":"us-central1","jobDir":"gs://bkt1/out","runtimeVersion":"2.11",
                        "pythonVersion":"3.7","network":"projects/1/global/networks/n",
                        "serviceAccount":"sa@p.iam.gserviceaccount.com",
                        "enableWebAccess":true}})"},
        MappingCase{"ScaleTierBasicIsSentExplicitly", "",
                    [](RawTrainingFlags& f) { f.scale_tier = "basic"; },
                    R"({"jobId":"j1","trainingInput":{"scaleTier":"BASIC","region":"us-central1",
                        "enableWebAccess":false}})"},
        MappingCase{"UseChiefFalseIsSentExplicitly", "",
                    [](RawTrainingFlags& f) { f.use_chief_in_tf_config = "no"; },
                    R"({"jobId":"j1","trainingInput":{"useChiefInTfConfig":false,
                        "region":"us-central1","enableWebAccess":false}})"},
        MappingCase{"JobDirBucketGetsATrailingSlash", "",
                    [](RawTrainingFlags& f) { f.job_dir = "gs://bkt1"; },
                    R"({"jobId":"j1","trainingInput":{"region":"us-central1",
                        "jobDir":"gs://bkt1/","enableWebAccess":false}})"},
        MappingCase{
            "ReplicaFlagsOnEveryRole", "",
            [](RawTrainingFlags& f) {
              f.scale_tier = "custom";
              f.master = {"n1-standard-8", {}, "type=nvidia-tesla-t4,count=4", {}};
              f.worker = {"n1-standard-8", "3", "count=1,type=nvidia-tesla-v100", "gcr.io/p/w"};
              f.parameter_server = {"n1-highmem-8", "2", {}, "gcr.io/p/ps"};
              f.evaluator = {"n1-standard-4", "1", "type=nvidia-tesla-t4,count=1", "gcr.io/p/e"};
            },
            R"({"jobId":"j1","trainingInput":{"scaleTier":"CUSTOM",
                        "masterType":"n1-standard-8",
                        "masterConfig":{"acceleratorConfig":{"count":"4","type":"NVIDIA_TESLA_T4"}},
                        "workerType":"n1-standard-8","workerCount":"3",
                        "workerConfig":{"acceleratorConfig":{"count":"1","type":"NVIDIA_TESLA_V100"},
                                        "imageUri":"gcr.io/p/w"},
                        "parameterServerType":"n1-highmem-8","parameterServerCount":"2",
                        "parameterServerConfig":{"imageUri":"gcr.io/p/ps"},
                        "evaluatorType":"n1-standard-4","evaluatorCount":"1",
                        "evaluatorConfig":{"acceleratorConfig":{"count":"1","type":"NVIDIA_TESLA_T4"},
                                           "imageUri":"gcr.io/p/e"},
                        "region":"us-central1","enableWebAccess":false}})"},
        MappingCase{"TpuTfVersionGoesToTheWorker", "",
                    [](RawTrainingFlags& f) { f.tpu_tf_version = "2.2"; },
                    R"({"jobId":"j1","trainingInput":{"workerConfig":{"tpuTfVersion":"2.2"},
                        "region":"us-central1","enableWebAccess":false}})"},
        MappingCase{"KmsKeyIdCompletedWithTheProject", "",
                    [](RawTrainingFlags& f) {
                      f.kms_key = "k";
                      f.kms_keyring = "r";
                      f.kms_location = "l";
                    },
                    R"({"jobId":"j1","trainingInput":{"region":"us-central1",
                        "encryptionConfig":{"kmsKeyName":"projects/p/locations/l/keyRings/r/cryptoKeys/k"},
                        "enableWebAccess":false}})"},
        MappingCase{"FileOnlyKeepsTheFileButPackagesRegionAndWebAccess", kRuntimeConfig,
                    [](RawTrainingFlags&) {},
                    R"({"jobId":"j1","labels":{"team":"a"},"trainingInput":{"scaleTier":"CUSTOM",
                        "masterType":"n1-standard-8","masterConfig":{"imageUri":"gcr.io/p/m"},
                        "args":["--from-file"],"region":"us-central1",
                        "enableWebAccess":false}})"},
        MappingCase{"FlagsOverrideTheFile", kRuntimeConfig,
                    [](RawTrainingFlags& f) {
                      f.labels = {"team=b,env=dev"};
                      f.master.machine_type = "n1-standard-16";
                      f.master.accelerator = "type=nvidia-tesla-t4,count=1";
                      f.packages = "gs://bkt1/flag.tar.gz";
                      f.user_args = std::vector<std::string>{"--from-flag"};
                    },
                    R"({"jobId":"j1","labels":{"team":"b","env":"dev"},
                        "trainingInput":{"scaleTier":"CUSTOM","masterType":"n1-standard-16",
                        "masterConfig":{"imageUri":"gcr.io/p/m",
                          "acceleratorConfig":{"count":"1","type":"NVIDIA_TESLA_T4"}},
                        "packageUris":["gs://bkt1/flag.tar.gz"],"args":["--from-flag"],
                        "region":"us-central1","enableWebAccess":false}})"},
        MappingCase{"BareSeparatorClearsTheFilesArgs", kRuntimeConfig,
                    [](RawTrainingFlags& f) { f.user_args = std::vector<std::string>{}; },
                    R"({"jobId":"j1","labels":{"team":"a"},"trainingInput":{"scaleTier":"CUSTOM",
                        "masterType":"n1-standard-8","masterConfig":{"imageUri":"gcr.io/p/m"},
                        "region":"us-central1","enableWebAccess":false}})"},
        MappingCase{"RepeatedLabelsMerge", "",
                    [](RawTrainingFlags& f) {
                      f.labels = {"a=1,a=2", "b=3"};
                    },
                    R"({"jobId":"j1","labels":{"a":"2","b":"3"},
                        "trainingInput":{"region":"us-central1","enableWebAccess":false}})"}),
    [](const auto& tc) { return tc.param.name; });

// --- refusals: the exact line after "ERROR: (…) " ------------------------------------------

struct SubmitRefusalCase {
  std::string name;
  Edit edit;
  std::string error;
};

class FlagRefusalTest : public ::testing::TestWithParam<SubmitRefusalCase> {};

TEST_P(FlagRefusalTest, NamesTheProblemAsGcloudDoes) {
  RawTrainingFlags raw = BaseFlags();
  GetParam().edit(raw);
  auto flags = ParseTrainingFlags(raw, catalog::Catalog::Builtin());
  ASSERT_FALSE(flags.ok());
  EXPECT_EQ(flags.status().message(), GetParam().error);
}

INSTANTIATE_TEST_SUITE_P(
    Flags, FlagRefusalTest,
    ::testing::Values(
        SubmitRefusalCase{"WorkerCountWithoutType",
                          [](RawTrainingFlags& f) { f.worker.count = "2"; },
                          "argument --worker-machine-type: Must be specified."},
        SubmitRefusalCase{"WorkerTypeWithoutCount",
                          [](RawTrainingFlags& f) { f.worker.machine_type = "n1-standard-4"; },
                          "argument --worker-count: Must be specified."},
        SubmitRefusalCase{"ParameterServerCountWithoutType",
                          [](RawTrainingFlags& f) { f.parameter_server.count = "1"; },
                          "argument --parameter-server-machine-type: Must be specified."},
        SubmitRefusalCase{"EvaluatorTypeWithoutCount",
                          [](RawTrainingFlags& f) { f.evaluator.machine_type = "n1-standard-4"; },
                          "argument --evaluator-count: Must be specified."},
        SubmitRefusalCase{
            "BadAcceleratorCount",
            [](RawTrainingFlags& f) { f.worker.accelerator = "type=tpu-v2,count=x"; },
            "argument --worker-accelerator: Invalid value [x] for key [count]: must be an "
            "integer."},
        SubmitRefusalCase{
            "UnknownScaleTier", [](RawTrainingFlags& f) { f.scale_tier = "huge"; },
            "argument --scale-tier: Invalid choice: 'huge'.\n\nValid choices are [basic, "
            "basic-gpu, basic-tpu, custom, premium-1, standard-1]."},
        SubmitRefusalCase{
            "AsyncWithStreamLogs", [](RawTrainingFlags& f) { f.async = f.stream_logs = true; },
            "argument --async: At most one of --async | --stream-logs can be specified."},
        SubmitRefusalCase{"ImageWithRuntime",
                          [](RawTrainingFlags& f) {
                            f.master.image_uri = "gcr.io/p/i";
                            f.runtime_version = "2.11";
                          },
                          "Only one of --master-image-uri, --runtime-version can be set."},
        SubmitRefusalCase{"CustomTierWithoutMaster",
                          [](RawTrainingFlags& f) { f.scale_tier = "custom"; },
                          "--master-machine-type is required if scale-tier is set to `CUSTOM`."},
        SubmitRefusalCase{"KeyRingWithoutKey", [](RawTrainingFlags& f) { f.kms_keyring = "r"; },
                          "argument --kms-keyring: --kms-key must be specified."},
        SubmitRefusalCase{"PartialKmsKey", [](RawTrainingFlags& f) { f.kms_key = "k"; },
                          "Invalid value for [--kms-key]: Encryption key not fully specified."},
        SubmitRefusalCase{
            "LabelKeyInTwoFlags",
            [](RawTrainingFlags& f) {
              f.labels = {"a=1", "a=1"};
            },
            "argument --labels: \"a\" cannot be specified multiple times; received: 1, 1"},
        SubmitRefusalCase{"LocalJobDir", [](RawTrainingFlags& f) { f.job_dir = "/tmp/out"; },
                          "argument --job-dir: Must be of form gs://bucket/object"},
        SubmitRefusalCase{
            "BadServiceAccount", [](RawTrainingFlags& f) { f.service_account = "nobody"; },
            "argument --service-account: Bad value [nobody]: Not a valid service account "
            "identifier. It should be either a numeric string representing the unique_id "
            "or an email of the form: my-iam-account@somedomain.com or "
            "my-iam-account@PROJECT_ID.iam.gserviceaccount.com"}),
    [](const auto& tc) { return tc.param.name; });

TEST(CheckHasPackages, WantsPackagesOrAMasterImage) {
  model::Job job;
  job.training_input.emplace();
  EXPECT_EQ(CheckHasPackages(job).message(), "Non-custom jobs must have packages.");
  job.training_input->package_uris = {"gs://bkt1/a.tar.gz"};
  EXPECT_TRUE(CheckHasPackages(job).ok());
  job.training_input->package_uris.clear();
  job.training_input->master_config.emplace().image_uri = "gcr.io/p/i";
  EXPECT_TRUE(CheckHasPackages(job).ok());
}

}  // namespace
}  // namespace trainyard::cli
