// Vertex AI CustomJobs: the strict decoder, Vertex's own rules, and the mapping of worker pools
// onto the engine's roles (docs/reference/ai-platform-training.md §13).
#include "vertex/custom_job.h"

#include <functional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "validate/validate.h"
#include "vertex/custom_job_mapping.h"
#include "vertex/spec_document.h"

namespace trainyard::vertex {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::testing::Pair;

// What gcloud 528 sends for --worker-pool-spec twice (recorded), plus env and a base directory.
constexpr std::string_view kTwoPools = R"({
  "displayName": "d1",
  "jobSpec": {
    "workerPoolSpecs": [
      {"containerSpec": {"args": ["--a=1", "--b"], "imageUri": "localhost/img:1",
                         "env": [{"name": "MODE", "value": "chief"}]},
       "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1"},
      {"containerSpec": {"args": ["--a=1"], "imageUri": "localhost/img:1", "command": ["python3"]},
       "machineSpec": {"acceleratorCount": 1, "acceleratorType": "NVIDIA_TESLA_T4",
                       "machineType": "n1-standard-4"},
       "replicaCount": "2"}
    ],
    "scheduling": {"timeout": "3600s", "restartJobOnWorkerRestart": true},
    "baseOutputDirectory": {"outputUriPrefix": "gs://b/out"}
  },
  "labels": {"x": "y"}
})";

constexpr std::string_view kPythonPool = R"({
  "displayName": "d2",
  "jobSpec": {"workerPoolSpecs": [{"machineSpec": {"machineType": "n1-standard-4"},
    "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-11:latest",
                          "packageUris": ["gs://bkt1/p.tar.gz"], "pythonModule": "trainer.task",
                          "args": ["--epochs=3"]},
    "replicaCount": "1"}]}
})";

CustomJob Decode(std::string_view body) {
  Result<CustomJob> job = DecodeCustomJob(body);
  EXPECT_TRUE(job.ok()) << job.status().ToString();
  return job.ok() ? *job : CustomJob{};
}

MappingContext Context() {
  return MappingContext{.job_id = "1234567890123456789",
                        .kind = "CustomJob",
                        .location = "us-central1",
                        .document = "{}",
                        .host_python_prefixes = DefaultHostPythonPrefixes(),
                        .catalog = nullptr};
}

// "field: description" of each violation, for readable failures.
std::vector<std::string> Problems(const std::vector<FieldViolation>& violations) {
  std::vector<std::string> out;
  for (const FieldViolation& violation : violations) {
    out.push_back(violation.field + ": " + violation.description);
  }
  return out;
}

std::vector<std::string> Fields(const Status& status) {
  std::vector<std::string> fields;
  for (const FieldViolation& violation : status.violations()) {
    fields.push_back(violation.field);
  }
  return fields;
}

std::vector<std::string> Fields(const std::vector<FieldViolation>& violations) {
  std::vector<std::string> fields;
  for (const FieldViolation& violation : violations) {
    fields.push_back(violation.field);
  }
  return fields;
}

TEST(DecodeCustomJobTest, ReadsWhatGcloudSends) {
  const CustomJob job = Decode(kTwoPools);
  EXPECT_EQ(job.display_name, "d1");
  ASSERT_EQ(job.job_spec.worker_pool_specs.size(), 2U);
  const WorkerPoolSpec& workers = job.job_spec.worker_pool_specs[1];
  EXPECT_EQ(workers.replica_count, 2);  // int64 as a JSON string
  EXPECT_EQ(workers.machine_spec.accelerator_type, "NVIDIA_TESLA_T4");
  EXPECT_EQ(workers.machine_spec.accelerator_count, 1);
  ASSERT_TRUE(workers.container_spec.has_value());
  EXPECT_THAT(workers.container_spec->command, ElementsAre("python3"));
  EXPECT_THAT(job.job_spec.worker_pool_specs[0].container_spec->env,
              ElementsAre(Pair("MODE", "chief")));
  ASSERT_TRUE(job.job_spec.scheduling.has_value());
  EXPECT_EQ(job.job_spec.scheduling->timeout, std::chrono::hours(1));
  EXPECT_TRUE(job.job_spec.scheduling->restart_job_on_worker_restart);
  EXPECT_EQ(job.job_spec.base_output_directory, "gs://b/out");
  EXPECT_THAT(job.labels, ElementsAre(Pair("x", "y")));
}

TEST(DecodeCustomJobTest, OutputOnlyFieldsAreIgnored) {
  const CustomJob job = Decode(
      R"({"displayName":"d","name":"projects/p/locations/l/customJobs/1","state":"JOB_STATE_RUNNING",
          "jobSpec":{"workerPoolSpecs":[]}})");
  EXPECT_EQ(job.display_name, "d");
}

TEST(DecodeCustomJobTest, RefusesWhatItCannotReadNamingTheField) {
  const struct {
    std::string_view body;
    std::vector<std::string> fields;
  } cases[] = {
      {R"([1])", {}},  // not an object: one message, no field
      {R"({"displayName": 3})", {"displayName"}},
      {R"({"jobSpec": {"workerPoolSpecs": [{"replicaCount": "two"}]}})",
       {"jobSpec.workerPoolSpecs[0].replicaCount"}},
      {R"({"jobSpec": {"workerPoolSpecs": [{"machineSpec": {"machineTyp": "x"}}]}})",
       {"jobSpec.workerPoolSpecs[0].machineSpec"}},
      {R"({"jobSpec": {"scheduling": {"timeout": "an hour"}}})", {"jobSpec.scheduling.timeout"}},
      {R"({"jobSpec": {"tensorboard": "projects/p/locations/l/tensorboards/1"}})",
       {"jobSpec.tensorboard"}},
      {R"({"jobSpec": {"workerPoolSpecs": [{"containerSpec": {"env": [{"value": "1"}]}}]}})",
       {"jobSpec.workerPoolSpecs[0].containerSpec.env[0].name"}},
      {R"({"bogus": 1, "labels": {"a": 1}})", {"labels.a", "root"}},
  };
  for (const auto& c : cases) {
    Result<CustomJob> job = DecodeCustomJob(c.body);
    ASSERT_FALSE(job.ok()) << c.body;
    EXPECT_EQ(job.status().code(), Code::kInvalidArgument) << c.body;
    EXPECT_EQ(Fields(job.status()), c.fields) << c.body << "\n" << job.status().ToString();
  }
}

TEST(ValidateJobSpecTest, EachRuleNamesItsField) {
  const struct {
    std::string_view pools;
    std::vector<std::string> fields;
  } cases[] = {
      {R"([])", {"jobSpec.workerPoolSpecs"}},
      {R"([{}, {}, {}, {}, {}])", {"jobSpec.workerPoolSpecs"}},
      {R"([{}])",
       {"jobSpec.workerPoolSpecs[0]", "jobSpec.workerPoolSpecs[0].machineSpec.machineType",
        "jobSpec.workerPoolSpecs[0].replicaCount", "jobSpec.workerPoolSpecs[0]"}},
      {R"([{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 2,
            "containerSpec": {"imageUri": "i"}}])",
       {"jobSpec.workerPoolSpecs[0].replicaCount"}},
      {R"([{"machineSpec": {"machineType": "n1-standard-4", "acceleratorType": "NVIDIA_TESLA_T4"},
            "replicaCount": 1, "containerSpec": {"imageUri": "i"}}])",
       {"jobSpec.workerPoolSpecs[0].machineSpec.acceleratorCount"}},
      {R"([{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
            "containerSpec": {}}])",
       {"jobSpec.workerPoolSpecs[0].containerSpec.imageUri"}},
      {R"([{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
            "pythonPackageSpec": {"executorImageUri": "docker.io/me/python:3"}}])",
       {"jobSpec.workerPoolSpecs[0].pythonPackageSpec.executorImageUri",
        "jobSpec.workerPoolSpecs[0].pythonPackageSpec.packageUris",
        "jobSpec.workerPoolSpecs[0].pythonPackageSpec.pythonModule"}},
      // A placeholder pool holds a place: workers skipped, parameter servers set.
      {R"([{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
            "containerSpec": {"imageUri": "i"}}, {},
           {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
            "containerSpec": {"imageUri": "i"}}])",
       {}},
      {R"([{"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
            "containerSpec": {"imageUri": "i"}},
           {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
            "pythonPackageSpec": {"executorImageUri": "gcr.io/cloud-aiplatform/training/tf-cpu.2-11",
                                  "packageUris": ["gs://bkt1/p.tar.gz"], "pythonModule": "m"}}])",
       {"jobSpec.workerPoolSpecs"}},
  };
  for (const auto& c : cases) {
    const CustomJob job =
        Decode(std::string(R"({"jobSpec": {"workerPoolSpecs": )") + std::string(c.pools) + "}}");
    EXPECT_EQ(Fields(ValidateJobSpec(job.job_spec, "jobSpec", Context())), c.fields) << c.pools;
  }
}

TEST(ValidateJobSpecTest, PythonPoolsMustShareTheirPackage) {
  const CustomJob job = Decode(R"({"jobSpec": {"workerPoolSpecs": [
      {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
       "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/vertex-ai/training/x",
                             "packageUris": ["gs://b/a.tar.gz"], "pythonModule": "m"}},
      {"machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": 1,
       "pythonPackageSpec": {"executorImageUri": "us-docker.pkg.dev/vertex-ai/training/x",
                             "packageUris": ["gs://b/b.tar.gz"], "pythonModule": "m"}}]}})");
  EXPECT_THAT(Fields(ValidateJobSpec(job.job_spec, "jobSpec", Context())),
              ElementsAre("jobSpec.workerPoolSpecs[1].pythonPackageSpec"));
}

TEST(ValidateDisplayNameTest, RequiredAndAtMost128Characters) {
  EXPECT_THAT(Fields(ValidateDisplayName("")), ElementsAre("displayName"));
  EXPECT_THAT(ValidateDisplayName(std::string(128, 'x')), IsEmpty());
  EXPECT_THAT(Fields(ValidateDisplayName(std::string(129, 'x'))), ElementsAre("displayName"));
  EXPECT_THAT(ValidateDisplayName("ü" + std::string(127, 'x')), IsEmpty());  // characters
}

TEST(ToJobTest, PoolsBecomeRolesAndTheRestExtras) {
  const model::Job job = ToJob(Decode(kTwoPools), Context());
  EXPECT_EQ(job.job_id, "1234567890123456789");
  const model::TrainingInput& input = *job.training_input;
  EXPECT_EQ(input.scale_tier, model::ScaleTier::kCustom);
  EXPECT_EQ(input.region, "us-central1");
  EXPECT_TRUE(input.use_chief_in_tf_config);
  EXPECT_EQ(input.master_type, "n1-standard-4");
  EXPECT_EQ(input.master_config->image_uri, "localhost/img:1");
  EXPECT_THAT(input.master_config->container_args, ElementsAre("--a=1", "--b"));
  EXPECT_EQ(input.worker_count, 2);
  EXPECT_EQ(input.worker_config->accelerator_config,
            (model::AcceleratorConfig{1, "NVIDIA_TESLA_T4"}));
  EXPECT_THAT(input.worker_config->container_command, ElementsAre("python3"));
  EXPECT_EQ(input.parameter_server_count, 0);
  EXPECT_EQ(input.scheduling->max_running_time, std::chrono::hours(1));
  const model::JobExtras& extras = *job.extras;
  EXPECT_THAT(extras.master.env, ElementsAre(Pair("MODE", "chief")));
  EXPECT_TRUE(extras.restart_all_on_failure);
  ASSERT_TRUE(extras.vertex.has_value());
  EXPECT_EQ(extras.vertex->display_name, "d1");
  EXPECT_EQ(extras.vertex->base_output_directory, "gs://b/out");
  EXPECT_THAT(job.labels, ElementsAre(Pair("x", "y")));
  // The mapped job passes ml v1's rules (machine types, GPU counts, region).
  EXPECT_THAT(Problems(validate::Validate(job, catalog::Catalog::Builtin())), IsEmpty());
}

TEST(ToJobTest, APythonPackageIsTheJobsCodeWithEachPoolsArgs) {
  const model::Job job = ToJob(Decode(kPythonPool), Context());
  const model::TrainingInput& input = *job.training_input;
  EXPECT_THAT(input.package_uris, ElementsAre("gs://bkt1/p.tar.gz"));
  EXPECT_EQ(input.python_module, "trainer.task");
  EXPECT_TRUE(input.master_config->image_uri.empty());
  ASSERT_TRUE(job.extras->master.args.has_value());
  EXPECT_THAT(*job.extras->master.args, ElementsAre("--epochs=3"));
  EXPECT_THAT(Problems(validate::Validate(job, catalog::Catalog::Builtin())), IsEmpty());
}

TEST(ToJobTest, TheEngineRulesSpeakInVertexPaths) {
  model::Job job = ToJob(Decode(kTwoPools), Context());
  job.training_input->worker_config->accelerator_config->count = 3;  // n1-standard-4 takes 1,2,4
  const std::vector<FieldViolation> violations =
      validate::Validate(job, catalog::Catalog::Builtin());
  ASSERT_FALSE(violations.empty());
  for (const FieldViolation& violation : violations) {
    EXPECT_TRUE(
        MlFieldToVertex(violation.field, "jobSpec").starts_with("jobSpec.workerPoolSpecs[1]"))
        << violation.field << ": " << violation.description;
  }
}

// The fields a create of `body` is refused at, checked as api/vertex/routes.cc does: the
// decoder, Vertex's rules, then the mapped job's engine rules in Vertex's paths.
std::vector<std::string> CreateFields(std::string_view body) {
  Result<CustomJob> job = DecodeCustomJob(body);
  if (!job.ok()) {
    return Fields(job.status());
  }
  static constexpr std::string_view kMembers[] = {"jobSpec"};
  MappingContext context = Context();
  context.document = SpecDocument(body, kMembers, /*unwrap=*/true);
  std::vector<FieldViolation> violations = ValidateDisplayName(job->display_name);
  for (FieldViolation& violation : ValidateJobSpec(job->job_spec, "jobSpec", context)) {
    violations.push_back(std::move(violation));
  }
  if (violations.empty()) {
    for (const FieldViolation& violation :
         validate::Validate(ToJob(*job, context), catalog::Catalog::Builtin())) {
      violations.push_back({MlFieldToVertex(violation.field, "jobSpec"), violation.description});
    }
  }
  return Fields(violations);
}

struct BoundsCase {
  std::string name;
  std::string_view body;
  std::function<void(nlohmann::json& pools)> mutate;  // jobSpec.workerPoolSpecs
  std::vector<std::string> fields;
};

void PrintTo(const BoundsCase& c, std::ostream* os) {
  *os << c.name;
}

class ExecBoundsTest : public ::testing::TestWithParam<BoundsCase> {};

TEST_P(ExecBoundsTest, NamesTheVertexField) {
  const BoundsCase& c = GetParam();
  nlohmann::json body = nlohmann::json::parse(c.body);
  c.mutate(body["jobSpec"]["workerPoolSpecs"]);
  EXPECT_EQ(CreateFields(body.dump()), c.fields);
}

const std::string kNul("\0", 1);

nlohmann::json Strings(std::size_t count, std::size_t bytes) {
  return std::vector<std::string>(count, std::string(bytes, 'x'));
}

nlohmann::json Variables(std::size_t count, std::size_t bytes) {
  nlohmann::json env = nlohmann::json::array();
  for (std::size_t i = 0; i < count; ++i) {
    env.push_back({{"name", "V" + std::to_string(i)}, {"value", std::string(bytes, 'x')}});
  }
  return env;
}

const std::string kPool0 = "jobSpec.workerPoolSpecs[0]";
const std::string kPool1 = "jobSpec.workerPoolSpecs[1]";

// What a replica is started with must fit one execve (validate/exec_limits.cc): arguments and
// values without NUL, at most 128 KiB each, 1 MiB in all; variable names without '=' or NUL.
INSTANTIATE_TEST_SUITE_P(
    Rules, ExecBoundsTest,
    ::testing::Values(
        BoundsCase{"Containers", kTwoPools, [](nlohmann::json&) {}, {}},
        BoundsCase{"NulInArg",
                   kTwoPools,
                   [](nlohmann::json& p) { p[0]["containerSpec"]["args"][1] = "--b" + kNul; },
                   {kPool0 + ".containerSpec.args[1]"}},
        BoundsCase{"NulInCommand",
                   kTwoPools,
                   [](nlohmann::json& p) { p[1]["containerSpec"]["command"][0] = kNul; },
                   {kPool1 + ".containerSpec.command[0]"}},
        BoundsCase{"LongArg",
                   kTwoPools,
                   [](nlohmann::json& p) { p[1]["containerSpec"]["args"] = Strings(1, 200'000); },
                   {kPool1 + ".containerSpec.args[0]"}},
        BoundsCase{"ArgsPastOneMebibyte",
                   kTwoPools,
                   [](nlohmann::json& p) { p[0]["containerSpec"]["args"] = Strings(10, 120'000); },
                   {kPool0 + ".containerSpec.args"}},
        BoundsCase{"NameWithEquals",
                   kTwoPools,
                   [](nlohmann::json& p) { p[0]["containerSpec"]["env"][0]["name"] = "A=B"; },
                   {kPool0 + ".containerSpec.env[0].name"}},
        BoundsCase{"NulInName",
                   kTwoPools,
                   [](nlohmann::json& p) { p[0]["containerSpec"]["env"][0]["name"] = "A" + kNul; },
                   {kPool0 + ".containerSpec.env[0].name"}},
        BoundsCase{"EmptyName",
                   kTwoPools,
                   [](nlohmann::json& p) { p[0]["containerSpec"]["env"][0]["name"] = ""; },
                   {kPool0 + ".containerSpec.env[0].name"}},
        BoundsCase{"NulInValue",
                   kTwoPools,
                   [](nlohmann::json& p) { p[0]["containerSpec"]["env"][0]["value"] = kNul; },
                   {kPool0 + ".containerSpec.env[0].value"}},
        BoundsCase{"EnvironmentPastOneMebibyte",
                   kTwoPools,
                   [](nlohmann::json& p) { p[1]["containerSpec"]["env"] = Variables(10, 120'000); },
                   {kPool1 + ".containerSpec.env"}},
        BoundsCase{"Package", kPythonPool, [](nlohmann::json&) {}, {}},
        BoundsCase{"NulInPackageArg",
                   kPythonPool,
                   [](nlohmann::json& p) { p[0]["pythonPackageSpec"]["args"][0] = kNul; },
                   {kPool0 + ".pythonPackageSpec.args[0]"}},
        BoundsCase{
            "PackageArgsPastOneMebibyte",
            kPythonPool,
            [](nlohmann::json& p) { p[0]["pythonPackageSpec"]["args"] = Strings(10, 120'000); },
            {kPool0 + ".pythonPackageSpec.args"}},
        BoundsCase{"PackageNameWithEquals",
                   kPythonPool,
                   [](nlohmann::json& p) {
                     p[0]["pythonPackageSpec"]["env"] =
                         nlohmann::json::array({{{"name", "A=B"}, {"value", "x"}}});
                   },
                   {kPool0 + ".pythonPackageSpec.env[0].name"}},
        BoundsCase{
            "PackageLongVariable",
            kPythonPool,
            [](nlohmann::json& p) { p[0]["pythonPackageSpec"]["env"] = Variables(1, 140'000); },
            {kPool0 + ".pythonPackageSpec.env[0]"}}),
    [](const auto& tc) { return tc.param.name; });

// Refused as ml v1 refuses them, and in one pass: the whole body was once parsed into an
// order-keeping document, which took 20 s for these (issue #31).
TEST(CreateTest, HundredThousandLabelsAreRefused) {
  nlohmann::json body = nlohmann::json::parse(kTwoPools);
  for (int i = 0; i < 100'000; ++i) {
    body["labels"]["l" + std::to_string(i)] = "v";
  }
  EXPECT_THAT(CreateFields(body.dump()), ElementsAre("labels"));
}

TEST(MlFieldToVertexTest, Table) {
  const struct {
    std::string_view ml;
    std::string_view vertex;
  } cases[] = {
      {"trainingInput.masterType", "jobSpec.workerPoolSpecs[0].machineSpec.machineType"},
      {"trainingInput.workerCount", "jobSpec.workerPoolSpecs[1].replicaCount"},
      {"trainingInput.parameterServerConfig.acceleratorConfig.type",
       "jobSpec.workerPoolSpecs[2].machineSpec.acceleratorType"},
      {"trainingInput.evaluatorConfig.acceleratorConfig.count",
       "jobSpec.workerPoolSpecs[3].machineSpec.acceleratorCount"},
      {"trainingInput.workerConfig.imageUri", "jobSpec.workerPoolSpecs[1].containerSpec.imageUri"},
      {"trainingInput.region", "name"},
      {"trainingInput.scheduling.maxRunningTime", "jobSpec.scheduling.timeout"},
      {"trainingInput.hyperparameters.maxTrials", "maxTrialCount"},
      {"trainingInput.hyperparameters.params[2].minValue", "studySpec.parameters[2]"},
      {"trainingInput.hyperparameters.goal", "studySpec.metrics[0].goal"},
      {"trainingInput.masterConfig.containerCommand[0]",
       "jobSpec.workerPoolSpecs[0].containerSpec.command[0]"},
      {"trainingInput.workerConfig.containerArgs", "jobSpec.workerPoolSpecs[1].containerSpec.args"},
      {"trainingInput.evaluatorConfig.containerEnv[2].value",
       "jobSpec.workerPoolSpecs[3].containerSpec.env[2].value"},
      {"trainingInput.parameterServerConfig.env[0].name",
       "jobSpec.workerPoolSpecs[2].pythonPackageSpec.env[0].name"},
      {"trainingInput.masterConfig.args[1]",
       "jobSpec.workerPoolSpecs[0].pythonPackageSpec.args[1]"},
      {"labels.x", "labels.x"},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(MlFieldToVertex(c.ml, "jobSpec"), c.vertex) << c.ml;
  }
}

}  // namespace
}  // namespace trainyard::vertex
