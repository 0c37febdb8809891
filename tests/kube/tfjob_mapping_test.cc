#include "kube/tfjob_mapping.h"

#include <chrono>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kube/tfjob_decode.h"
#include "kube/tfjob_fixtures.h"
#include "kube/tfjob_validate.h"
#include "validate/validate.h"

namespace trainyard::kube {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

TFJob Decode(const std::string& body) {
  KubeResult<DecodedTFJob> decoded = DecodeTFJob(body);
  EXPECT_TRUE(decoded.ok()) << (decoded.ok() ? "" : decoded.error().message);
  return decoded.ok() ? decoded->job : TFJob{};
}

model::Job Map(const TFJob& tfjob, std::vector<NodeView> nodes = {}) {
  Result<model::Job> job = ToJob(tfjob, MappingContext{.job_id = EngineJobId(tfjob.metadata.name),
                                                       .uid = "uid-1",
                                                       .document = EncodeTFJob(tfjob, nullptr),
                                                       .nodes = std::move(nodes)});
  EXPECT_TRUE(job.ok()) << job.status().ToString();
  return job.ok() ? *job : model::Job{};
}

TEST(ToJobTest, ChiefIsTheMasterAndKeepsItsContainer) {
  const model::Job job = Map(testing::ValidTFJob());
  EXPECT_EQ(job.job_id, "mnist");
  const model::TrainingInput& input = *job.training_input;
  EXPECT_EQ(input.scale_tier, model::ScaleTier::kCustom);
  EXPECT_EQ(input.region, "us-central1");
  EXPECT_EQ(input.master_type, "n1-standard-4");
  ASSERT_TRUE(input.master_config.has_value());
  EXPECT_EQ(input.master_config->image_uri, "registry.local/trainer:1.0");
  EXPECT_THAT(input.master_config->container_command, ElementsAre("python", "-m", "trainer.task"));
  EXPECT_THAT(input.master_config->container_args, ElementsAre("--job-dir=/out"));
  EXPECT_EQ(input.master_config->accelerator_config,
            (model::AcceleratorConfig{1, "NVIDIA_TESLA_T4"}));  // `accelerator: nvidia-tesla-t4`
  EXPECT_EQ(input.worker_count, 2);
  EXPECT_EQ(input.worker_type, "n1-standard-4");
  EXPECT_FALSE(input.worker_config->accelerator_config.has_value());
  EXPECT_EQ(input.parameter_server_count, 1);
  EXPECT_EQ(input.evaluator_count, 0);
  const model::JobExtras& extras = *job.extras;
  EXPECT_EQ(extras.master.restart, model::RestartRule::kOnFailure);
  EXPECT_EQ(extras.worker.restart, model::RestartRule::kNever);  // TFJob's default
  EXPECT_EQ(extras.master.env,
            (std::vector<std::pair<std::string, std::string>>{{"MODE", "train"}}));
  EXPECT_EQ(extras.master.node_selector.at("accelerator"), "nvidia-tesla-t4");
  EXPECT_EQ(extras.kubeflow,
            (model::KubeflowNaming{
                .job_name = "mnist", .namespace_name = "team-a", .primary_type = "chief"}));
  EXPECT_EQ(extras.backoff_limit, 3);
  EXPECT_FALSE(extras.suspended);
  ASSERT_TRUE(extras.kube.has_value());
  EXPECT_EQ(extras.kube->kind, "TFJob");
  EXPECT_EQ(extras.kube->api_version, "kubeflow.org/v1");
  EXPECT_EQ(extras.kube->name, "mnist");
  EXPECT_EQ(extras.kube->namespace_name, "team-a");
  EXPECT_EQ(extras.kube->uid, "uid-1");
  EXPECT_EQ(extras.kube->generation, 1);
  EXPECT_FALSE(extras.kube->document.empty());
}

TEST(ToJobTest, WithoutChiefWorkerZeroIsTheMaster) {
  const model::Job job = Map(Decode(testing::Manifest(
      R"({"successPolicy": "AllWorkers", "runPolicy": {"suspend": true,
          "activeDeadlineSeconds": 3600, "schedulingPolicy": {"scheduleTimeoutSeconds": 60,
          "priorityClass": "high"}},
          "tfReplicaSpecs": {"worker": {"replicas": 3, "restartPolicy": "ExitCode",
          "template": {"spec": {"containers": [{"name": "tensorflow", "image": "w",
                                                "workingDir": "/app"}]}}},
          "Evaluator": {"template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "e"}]}}}}})")));
  const model::TrainingInput& input = *job.training_input;
  EXPECT_EQ(input.master_config->image_uri, "w");
  EXPECT_EQ(input.worker_count, 2);  // Worker.replicas - 1
  EXPECT_EQ(input.worker_config->image_uri, "w");
  EXPECT_EQ(input.evaluator_count, 1);
  EXPECT_EQ(input.evaluator_config->image_uri, "e");
  EXPECT_EQ(input.scheduling->max_running_time, std::chrono::hours(1));
  EXPECT_EQ(input.scheduling->max_wait_time, std::chrono::minutes(1));
  EXPECT_EQ(input.scheduling->priority, 0);  // the class's number is looked up when placed
  EXPECT_EQ(job.extras->priority_class, "high");
  EXPECT_EQ(job.extras->kubeflow->primary_type, "worker");
  EXPECT_EQ(job.extras->master.restart, model::RestartRule::kExitCode);
  EXPECT_EQ(job.extras->master.working_dir, "/app");
  EXPECT_EQ(job.extras->success, model::SuccessRule::kAllWorkers);
  EXPECT_TRUE(job.extras->suspended);
}

TEST(ToJobTest, OneWorkerIsAMasterAlone) {
  const model::Job job = Map(Decode(testing::Manifest(
      R"({"tfReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "w"}]}}}}})")));
  EXPECT_EQ(job.training_input->worker_count, 0);
  EXPECT_FALSE(job.training_input->worker_config.has_value());
}

TEST(ToJobTest, MasterTypeIsKept) {
  TFJob tfjob = testing::ValidTFJob();
  tfjob.replica_specs.front().type = "Master";
  EXPECT_EQ(Map(tfjob).extras->kubeflow->primary_type, "master");
}

TEST(ToJobTest, CopiesOnlyValidMlLabels) {
  TFJob tfjob = testing::ValidTFJob();
  tfjob.metadata.labels = {{"team", "a"}, {"example.com/x", "y"}, {"Upper", "v"}};
  EXPECT_EQ(Map(tfjob).labels, (model::Labels{{"team", "a"}}));
}

TEST(ToJobTest, NoPrimaryIsInvalid) {
  TFJob tfjob = testing::ValidTFJob();
  tfjob.replica_specs.erase(tfjob.replica_specs.begin());  // Chief
  std::erase_if(tfjob.replica_specs, [](const ReplicaSpec& s) { return s.type == "Worker"; });
  EXPECT_EQ(ToJob(tfjob, MappingContext{.job_id = "x"}).status().code(), Code::kInvalidArgument);
}

struct AcceleratorCase {
  std::string name;
  std::map<std::string, std::string> selector;
  std::vector<NodeView> nodes;
  std::string expected;
};

class AcceleratorForTest : public ::testing::TestWithParam<AcceleratorCase> {};

TEST_P(AcceleratorForTest, PicksTheType) {
  EXPECT_EQ(AcceleratorFor(GetParam().selector, GetParam().nodes, catalog::Catalog::Builtin()),
            GetParam().expected);
}

const NodeView kT4Node{
    .name = "a", .labels = {{"nvidia", "t4"}}, .accelerators = {"NVIDIA_TESLA_T4"}};
const NodeView kV100Node{
    .name = "b", .labels = {{"pool", "big"}}, .accelerators = {"NVIDIA_TESLA_V100"}};
const NodeView kCpuNode{.name = "c", .labels = {{"pool", "cpu"}}};

INSTANTIATE_TEST_SUITE_P(
    Rules, AcceleratorForTest,
    ::testing::Values(
        AcceleratorCase{"GkeLabel",
                        {{"cloud.google.com/gke-accelerator", "nvidia-tesla-p100"}},
                        {kT4Node},
                        "NVIDIA_TESLA_P100"},
        AcceleratorCase{
            "AcceleratorLabel", {{"accelerator", "nvidia-tesla-v100"}}, {}, "NVIDIA_TESLA_V100"},
        AcceleratorCase{
            "ProductLabel", {{"nvidia.com/gpu.product", "Tesla-P4"}}, {}, "NVIDIA_TESLA_P4"},
        AcceleratorCase{"UnknownFlagFallsThrough",
                        {{"accelerator", "fancy"}},
                        {kV100Node},
                        "NVIDIA_TESLA_V100"},
        AcceleratorCase{
            "MatchingNode", {{"pool", "big"}}, {kT4Node, kV100Node}, "NVIDIA_TESLA_V100"},
        AcceleratorCase{"SeedLabel", {{"nvidia", "t4"}}, {kV100Node, kT4Node}, "NVIDIA_TESLA_T4"},
        AcceleratorCase{"MatchingNodeWithoutGpu",
                        {{"pool", "cpu"}},
                        {kCpuNode, kV100Node},
                        "NVIDIA_TESLA_V100"},
        AcceleratorCase{
            "NoMatchFirstOffered", {{"zone", "x"}}, {kCpuNode, kV100Node}, "NVIDIA_TESLA_V100"},
        AcceleratorCase{"NoNodes", {}, {}, "NVIDIA_TESLA_T4"}),
    [](const auto& tc) { return tc.param.name; });

TEST(ToJobTest, MachineTypeTakesTheGpuCount) {
  TFJob tfjob = testing::ValidTFJob();
  tfjob.replica_specs.front().template_.containers.front().limits["nvidia.com/gpu"] = "8";
  tfjob.replica_specs.front().template_.node_selector = {{"accelerator", "nvidia-tesla-k80"}};
  const model::Job job = Map(tfjob);
  EXPECT_EQ(job.training_input->master_config->accelerator_config,
            (model::AcceleratorConfig{8, "NVIDIA_TESLA_K80"}));
  EXPECT_THAT(validate::Validate(job, catalog::Catalog::Builtin()), IsEmpty());
}

// The mapped job must pass ml v1 validation: the engine takes nothing else.
class MappedJobIsValidTest : public ::testing::TestWithParam<std::string> {};

TEST_P(MappedJobIsValidTest, PassesValidate) {
  const TFJob tfjob = Decode(GetParam());
  ASSERT_THAT(ValidateTFJob(tfjob, nullptr), IsEmpty());
  const model::Job job = Map(tfjob, {kT4Node, kV100Node});
  EXPECT_THAT(validate::Validate(job, catalog::Catalog::Builtin()), IsEmpty());
}

INSTANTIATE_TEST_SUITE_P(
    Manifests, MappedJobIsValidTest,
    ::testing::Values(
        testing::Manifest(testing::ChiefWorkerPsSpec()), testing::SeedManifest(),
        testing::Manifest(R"({"tfReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "w", "args": ["train"]}]}}}}})"),
        testing::Manifest(R"({"runPolicy": {"activeDeadlineSeconds": 60},
            "tfReplicaSpecs": {"Master": {"template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "m",
             "resources": {"limits": {"nvidia.com/gpu": 4}}}]}}},
            "Evaluator": {"replicas": 2, "template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "e"}]}}}}})")));

// What a replica is started with must fit one execve (validate/exec_limits.cc); a create answers
// the mapped job's violations at the TFJob's fields (api/kube/tfjobs.cc), after the TFJob's own
// rules. Each case changes the "tensorflow" container of one replica type of ChiefWorkerPsSpec.
struct BoundsCase {
  std::string name;
  std::string type;  // "Chief", "Worker", "PS"
  std::function<void(nlohmann::json& container)> mutate;
  std::vector<std::string> causes;  // "reason field"
};

void PrintTo(const BoundsCase& c, std::ostream* os) {
  *os << c.name;
}

std::vector<std::string> CreateCauses(const TFJob& tfjob) {
  std::vector<StatusCause> causes = ValidateTFJob(tfjob, nullptr);
  if (causes.empty()) {
    std::vector<FieldViolation> violations =
        validate::Validate(Map(tfjob), catalog::Catalog::Builtin());
    if (!violations.empty()) {
      causes = MappedJobCauses(Status::InvalidArgument(std::move(violations)), tfjob);
    }
  }
  std::vector<std::string> out;
  for (const StatusCause& cause : causes) {
    out.push_back(cause.reason + " " + cause.field);
  }
  return out;
}

class ExecBoundsTest : public ::testing::TestWithParam<BoundsCase> {};

TEST_P(ExecBoundsTest, NamesTheTFJobField) {
  const BoundsCase& c = GetParam();
  nlohmann::json spec = nlohmann::json::parse(testing::ChiefWorkerPsSpec());
  c.mutate(spec["tfReplicaSpecs"][c.type]["template"]["spec"]["containers"][0]);
  EXPECT_EQ(CreateCauses(Decode(testing::Manifest(spec.dump()))), c.causes);
}

const std::string kNul("\0", 1);

std::string ContainerPath(std::string_view type) {
  return fmt::format("spec.tfReplicaSpecs[{}].template.spec.containers[0]", type);
}

nlohmann::json Variables(std::size_t count, std::size_t bytes) {
  nlohmann::json env = nlohmann::json::array();
  for (std::size_t i = 0; i < count; ++i) {
    env.push_back({{"name", "V" + std::to_string(i)}, {"value", std::string(bytes, 'x')}});
  }
  return env;
}

INSTANTIATE_TEST_SUITE_P(
    Rules, ExecBoundsTest,
    ::testing::Values(
        BoundsCase{"Baseline", "Chief", [](nlohmann::json&) {}, {}},
        BoundsCase{"NulInArg",
                   "Chief",
                   [](nlohmann::json& c) { c["args"][0] = "--a" + kNul; },
                   {"FieldValueInvalid " + ContainerPath("Chief") + ".args[0]"}},
        BoundsCase{"NulInCommand",
                   "Worker",
                   [](nlohmann::json& c) {
                     c["command"] = {"python", kNul};
                   },
                   {"FieldValueInvalid " + ContainerPath("Worker") + ".command[1]"}},
        BoundsCase{"NulInValue",
                   "Chief",
                   [](nlohmann::json& c) { c["env"][0]["value"] = kNul; },
                   {"FieldValueInvalid " + ContainerPath("Chief") + ".env[0].value"}},
        // Names are Kubernetes' own rule, [-._a-zA-Z][-._a-zA-Z0-9]*: no '=', NUL or "".
        BoundsCase{"NameWithEquals",
                   "Chief",
                   [](nlohmann::json& c) { c["env"][0]["name"] = "A=B"; },
                   {"FieldValueInvalid " + ContainerPath("Chief") + ".env[0].name"}},
        BoundsCase{"LongArg",
                   "PS",
                   [](nlohmann::json& c) { c["args"] = {std::string(200'000, 'x')}; },
                   {"FieldValueInvalid " + ContainerPath("PS") + ".args[0]"}},
        BoundsCase{"ArgsPastOneMebibyte",
                   "Worker",
                   [](nlohmann::json& c) {
                     c["args"] = std::vector<std::string>(10, std::string(120'000, 'x'));
                   },
                   {"FieldValueInvalid " + ContainerPath("Worker") + ".args"}},
        BoundsCase{"EnvironmentPastOneMebibyte",
                   "Chief",
                   [](nlohmann::json& c) { c["env"] = Variables(10, 120'000); },
                   {"FieldValueInvalid " + ContainerPath("Chief") + ".env"}}),
    [](const auto& tc) { return tc.param.name; });

// Worker 0 is the master: both roles come from the Worker spec, and its cause is given once.
TEST(MappedJobCausesTest, WorkerZeroAsMasterIsReportedOnce) {
  const TFJob tfjob = Decode(testing::Manifest(R"({"tfReplicaSpecs": {"Worker": {"replicas": 3,
      "template": {"spec": {"containers": [{"name": "tensorflow", "image": "w",
                                            "args": ["\u0000"]}]}}}}})"));
  EXPECT_THAT(CreateCauses(tfjob),
              ElementsAre("FieldValueInvalid " + ContainerPath("Worker") + ".args[0]"));
}

TEST(MappedJobCausesTest, OtherRulesNameTheAiPlatformField) {
  const std::vector<StatusCause> causes =
      MappedJobCauses(Status::InvalidArgument(std::vector<FieldViolation>{
                          {"trainingInput.workerConfig.acceleratorConfig.count", "3 x T4"}}),
                      testing::ValidTFJob());
  ASSERT_EQ(causes.size(), 1U);
  EXPECT_EQ(causes[0].field,
            "spec (as the AI Platform job trainingInput.workerConfig.acceleratorConfig.count)");
  EXPECT_EQ(causes[0].message, "3 x T4");
}

TEST(ToJobTest, TheSeedMapsToPsAndWorkersWithT4s) {
  const model::Job job = Map(Decode(testing::SeedManifest()), {kV100Node, kT4Node});
  EXPECT_EQ(job.job_id, "nvidiatfjob");
  EXPECT_EQ(job.labels, (model::Labels{{"experiment", "experiment"}}));
  const model::TrainingInput& input = *job.training_input;
  EXPECT_EQ(input.master_config->image_uri, "nvcr.io/nvidia/tensorflow:19.06-py3");
  EXPECT_EQ(input.master_config->accelerator_config,
            (model::AcceleratorConfig{1, "NVIDIA_TESLA_T4"}));
  EXPECT_EQ(input.worker_count, 3);
  EXPECT_EQ(input.parameter_server_count, 1);
  EXPECT_EQ(input.master_config->container_args.size(), 9U);
  EXPECT_TRUE(input.master_config->container_command.empty());
  EXPECT_EQ(job.extras->kubeflow->primary_type, "worker");
  EXPECT_EQ(job.extras->master.restart, model::RestartRule::kOnFailure);
  EXPECT_EQ(job.extras->parameter_server.working_dir, "/home/benchmarks/tf_cnn_benchmarks.py");
  EXPECT_EQ(job.extras->kube->api_version, "kubeflow.org/v1beta2");
  EXPECT_EQ(job.extras->kube->namespace_name, "default");
}

TEST(EngineJobIdTest, DashesBecomeUnderscores) {
  EXPECT_EQ(EngineJobId("mnist-dist-2"), "mnist_dist_2");
  EXPECT_TRUE(validate::IsValidJobId(EngineJobId("a-b")));
}

TEST(PodNameTest, IsJobTypeIndex) {
  EXPECT_EQ(PodName("mnist", "Worker", 1), "mnist-worker-1");
  EXPECT_EQ(PodName("mnist", "PS", 0), "mnist-ps-0");
  EXPECT_EQ(PodName("a/b", "Chief", 0), "a-b-chief-0");
}

struct NameCase {
  std::string task;
  std::string primary;
  KubeReplica replica;
};

class TaskNameTest : public ::testing::TestWithParam<NameCase> {};

TEST_P(TaskNameTest, MapsBothWays) {
  const model::KubeflowNaming naming{
      .job_name = "j", .namespace_name = "n", .primary_type = GetParam().primary};
  EXPECT_EQ(KubeReplicaOf(GetParam().task, naming), GetParam().replica);
  EXPECT_EQ(TaskNameOf(GetParam().replica, naming), GetParam().task);
}

INSTANTIATE_TEST_SUITE_P(Names, TaskNameTest,
                         ::testing::Values(NameCase{"master-replica-0", "chief", {"Chief", 0}},
                                           NameCase{"master-replica-0", "master", {"Master", 0}},
                                           NameCase{"master-replica-0", "worker", {"Worker", 0}},
                                           NameCase{"worker-replica-0", "chief", {"Worker", 0}},
                                           NameCase{"worker-replica-0", "worker", {"Worker", 1}},
                                           NameCase{"worker-replica-4", "worker", {"Worker", 5}},
                                           NameCase{"ps-replica-2", "chief", {"PS", 2}},
                                           NameCase{
                                               "evaluator-replica-0", "worker", {"Evaluator", 0}}),
                         [](const auto& tc) {
                           return tc.param.task.substr(0, tc.param.task.find('-')) + "_" +
                                  tc.param.primary + "_" + std::to_string(tc.param.replica.index);
                         });

TEST(TaskNameTest, RefusesNamesOutsideTheRule) {
  const model::KubeflowNaming naming;
  EXPECT_EQ(KubeReplicaOf("master-replica-1", naming), std::nullopt);
  EXPECT_EQ(KubeReplicaOf("chief-replica-0", naming), std::nullopt);
  EXPECT_EQ(KubeReplicaOf("worker-replica-", naming), std::nullopt);
  EXPECT_EQ(KubeReplicaOf("worker-replica-x", naming), std::nullopt);
  EXPECT_EQ(TaskNameOf({"Launcher", 0}, naming), std::nullopt);
  EXPECT_EQ(TaskNameOf({"Chief", 1}, naming), std::nullopt);
}

TEST(JobIdSchemeForTest, TheNameThenNumberedSuffixes) {
  const model::JobIdScheme scheme = JobIdSchemeFor("mnist-dist");
  EXPECT_FALSE(scheme.random);
  EXPECT_EQ(scheme.max_attempts, 100);
  const std::vector<std::pair<int, std::string>> cases = {
      {0, "mnist_dist"}, {1, "mnist_dist_2"}, {2, "mnist_dist_3"}, {99, "mnist_dist_100"}};
  for (const auto& [attempt, want] : cases) {
    EXPECT_EQ(scheme.candidate(attempt, 12345), want) << attempt;  // the draw plays no part
  }
}

}  // namespace
}  // namespace trainyard::kube
