#include "kube/tfjob_validate.h"

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "kube/tfjob_decode.h"
#include "kube/tfjob_fixtures.h"

namespace trainyard::kube {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

ReplicaSpec& Spec(TFJob& job, std::string_view type) {
  for (ReplicaSpec& spec : job.replica_specs) {
    if (spec.type == type) {
      return spec;
    }
  }
  ADD_FAILURE() << "no " << type;
  return job.replica_specs.front();
}

Container& Tf(TFJob& job, std::string_view type = "Worker") {
  return Spec(job, type).template_.containers.front();
}

ReplicaSpec Replica(std::string type, std::int32_t replicas) {
  ReplicaSpec spec;
  spec.type = std::move(type);
  spec.replicas = replicas;
  spec.template_.containers.push_back(Container{.name = "tensorflow", .image = "i"});
  return spec;
}

struct RuleCase {
  std::string name;
  std::function<void(TFJob&)> mutate;
  // "reason field" of every cause, in order; empty when the job stays valid.
  std::vector<std::string> causes;
  std::string message = "";  // a substring of the first cause's message, when given
};

void PrintTo(const RuleCase& c, std::ostream* os) {
  *os << c.name;
}

class ValidateTFJobTest : public ::testing::TestWithParam<RuleCase> {};

TEST_P(ValidateTFJobTest, ReportsTheRule) {
  const RuleCase& c = GetParam();
  TFJob job = testing::ValidTFJob();
  c.mutate(job);
  const std::vector<StatusCause> causes = ValidateTFJob(job, nullptr);
  std::vector<std::string> got;
  for (const StatusCause& cause : causes) {
    got.push_back(cause.reason + " " + cause.field);
  }
  EXPECT_EQ(got, c.causes);
  if (!c.message.empty() && !causes.empty()) {
    EXPECT_THAT(causes.front().message, HasSubstr(c.message));
  }
}

const std::string kW = "spec.tfReplicaSpecs[Worker]";
const std::string kWPod = kW + ".template.spec";
const std::string kWC = kWPod + ".containers[0]";

// One row per rule; the baseline (Chief + 2 Worker + PS) is valid.
const RuleCase kRules[] = {
    {"Baseline", [](TFJob&) {}, {}},
    // metadata
    {"NameRequired", [](TFJob& j) { j.metadata.name = ""; }, {"FieldValueRequired metadata.name"}},
    {"NameNotDns1035",
     [](TFJob& j) { j.metadata.name = "1mnist"; },
     {"FieldValueInvalid metadata.name"},
     "DNS-1035"},
    {"NameUpperCase",
     [](TFJob& j) { j.metadata.name = "Mnist"; },
     {"FieldValueInvalid metadata.name"}},
    {"NameTooLong",
     [](TFJob& j) { j.metadata.name = std::string(64, 'a'); },
     {"FieldValueInvalid metadata.name"},
     "no more than 63 characters"},
    {"NameOf63", [](TFJob& j) { j.metadata.name = std::string(63, 'a'); }, {}},
    {"NamespaceNotALabel",
     [](TFJob& j) { j.metadata.namespace_name = "Team_A"; },
     {"FieldValueInvalid metadata.namespace"},
     "RFC 1123"},
    {"NamespaceStartingWithDigit", [](TFJob& j) { j.metadata.namespace_name = "1team"; }, {}},
    {"LabelKeyInvalid",
     [](TFJob& j) { j.metadata.labels["-bad"] = "x"; },
     {"FieldValueInvalid metadata.labels"}},
    {"LabelValueInvalid",
     [](TFJob& j) { j.metadata.labels["team"] = "a b"; },
     {"FieldValueInvalid metadata.labels[team]"}},
    {"LabelPrefixed", [](TFJob& j) { j.metadata.labels["example.com/Team"] = "A.b"; }, {}},
    // annotations: apimachinery's ValidateAnnotations, 256 KiB of keys and values in all
    {"AnnotationsOf256KiB",
     [](TFJob& j) { j.metadata.annotations["a"] = std::string(256 * 1024 - 1, 'x'); },
     {}},
    {"AnnotationsPast256KiB",
     [](TFJob& j) { j.metadata.annotations["a"] = std::string(256 * 1024, 'x'); },
     {"FieldValueTooLong metadata.annotations"},
     "Too long: may not be longer than 262144"},
    {"AnnotationSizesAdd",
     [](TFJob& j) {
       j.metadata.annotations["kubectl.kubernetes.io/last-applied-configuration"] =
           std::string(200'000, 'x');
       j.metadata.annotations["note"] = std::string(100'000, 'x');
     },
     {"FieldValueTooLong metadata.annotations"}},
    {"AnnotationKeyInvalid",
     [](TFJob& j) { j.metadata.annotations["a b"] = "x"; },
     {"FieldValueInvalid metadata.annotations"}},
    {"AnnotationKeyAnyCase", [](TFJob& j) { j.metadata.annotations["Example.com/Note"] = ""; }, {}},
    {"TemplateAnnotationsPast256KiB",
     [](TFJob& j) { Spec(j, "Worker").template_.annotations["a"] = std::string(256 * 1024, 'x'); },
     {"FieldValueTooLong " + kW + ".template.metadata.annotations"}},
    // replica specs
    {"NoReplicaSpecs",
     [](TFJob& j) { j.replica_specs.clear(); },
     {"FieldValueRequired spec.tfReplicaSpecs"}},
    {"UnknownType",
     [](TFJob& j) { j.replica_specs.push_back(Replica("Launcher", 1)); },
     {"FieldValueNotSupported spec.tfReplicaSpecs"},
     "Unsupported value: \"Launcher\": supported values: \"Chief\", \"Evaluator\", \"Master\", "
     "\"PS\", \"Worker\""},
    {"DuplicateType",
     [](TFJob& j) { j.replica_specs.insert(j.replica_specs.begin() + 1, Replica("PS", 1)); },
     {"FieldValueDuplicate spec.tfReplicaSpecs"}},
    {"ChiefAndMaster",
     [](TFJob& j) { j.replica_specs.insert(j.replica_specs.begin() + 1, Replica("Master", 1)); },
     {"FieldValueForbidden spec.tfReplicaSpecs"},
     "more than 1 Chief or Master"},
    {"MasterInsteadOfChief", [](TFJob& j) { Spec(j, "Chief").type = "Master"; }, {}},
    {"ChiefTwice",
     [](TFJob& j) { Spec(j, "Chief").replicas = 2; },
     {"FieldValueInvalid spec.tfReplicaSpecs[Chief].replicas"}},
    {"ChiefZero",
     [](TFJob& j) { Spec(j, "Chief").replicas = 0; },
     {"FieldValueInvalid spec.tfReplicaSpecs[Chief].replicas"}},
    {"NegativeReplicas",
     [](TFJob& j) { Spec(j, "Worker").replicas = -1; },
     {"FieldValueInvalid " + kW + ".replicas"},
     "Invalid value: -1"},
    {"ZeroWorkersWithChief", [](TFJob& j) { Spec(j, "Worker").replicas = 0; }, {}},
    {"NoChiefWorkerZero",
     [](TFJob& j) {
       std::erase_if(j.replica_specs, [](const ReplicaSpec& s) { return s.type == "Chief"; });
       Spec(j, "Worker").replicas = 0;
     },
     {"FieldValueRequired spec.tfReplicaSpecs[Worker]"}},
    {"OnlyPS",
     [](TFJob& j) {
       std::erase_if(j.replica_specs, [](const ReplicaSpec& s) { return s.type != "PS"; });
     },
     {"FieldValueRequired spec.tfReplicaSpecs[Worker]"}},
    {"RestartPolicyUnknown",
     [](TFJob& j) { Spec(j, "Worker").restart_policy = "Sometimes"; },
     {"FieldValueNotSupported " + kW + ".restartPolicy"},
     "Unsupported value: \"Sometimes\": supported values: \"Always\", \"ExitCode\", \"Never\", "
     "\"OnFailure\""},
    {"RestartPolicyExitCode", [](TFJob& j) { Spec(j, "Worker").restart_policy = "ExitCode"; }, {}},
    {"PodRestartPolicyUnknown",
     [](TFJob& j) { Spec(j, "Worker").template_.restart_policy = "ExitCode"; },
     {"FieldValueNotSupported " + kWPod + ".restartPolicy"}},
    {"TemplateLabelInvalid",
     [](TFJob& j) { Spec(j, "Worker").template_.labels["a"] = "-"; },
     {"FieldValueInvalid " + kW + ".template.metadata.labels[a]"}},
    {"NodeSelectorKeyInvalid",
     [](TFJob& j) { Spec(j, "Worker").template_.node_selector["a b"] = "x"; },
     {"FieldValueInvalid " + kWPod + ".nodeSelector"}},
    {"NoContainers",
     [](TFJob& j) { Spec(j, "Worker").template_.containers.clear(); },
     {"FieldValueRequired " + kWPod + ".containers"}},
    {"NoImage", [](TFJob& j) { Tf(j).image = ""; }, {"FieldValueRequired " + kWC + ".image"}},
    {"NoContainerName",
     [](TFJob& j) { Tf(j).name = ""; },
     {"FieldValueRequired " + kWC + ".name", "FieldValueRequired " + kWPod + ".containers"}},
    {"NoTensorflowContainer",
     [](TFJob& j) { Tf(j).name = "trainer"; },
     {"FieldValueForbidden " + kWC, "FieldValueRequired " + kWPod + ".containers"},
     "not supported by trainyard"},
    {"Sidecar",
     [](TFJob& j) {
       Spec(j, "Worker").template_.containers.push_back(Container{.name = "log", .image = "i"});
     },
     {"FieldValueForbidden " + kWPod + ".containers[1]"},
     "a replica runs one container"},
    {"EnvNameInvalid",
     [](TFJob& j) {
       Tf(j).env.push_back({"1A", "x", false});
     },
     {"FieldValueInvalid " + kWC + ".env[0].name"}},
    {"EnvNameWithEquals",
     [](TFJob& j) {
       Tf(j).env.push_back({"A=B", "x", false});
     },
     {"FieldValueInvalid " + kWC + ".env[0].name"}},
    {"EnvNameWithNul",
     [](TFJob& j) {
       Tf(j).env.push_back({std::string("A\0", 2), "x", false});
     },
     {"FieldValueInvalid " + kWC + ".env[0].name"}},
    {"EnvNameEmpty",
     [](TFJob& j) {
       Tf(j).env.push_back({"", "x", false});
     },
     {"FieldValueInvalid " + kWC + ".env[0].name"}},
    {"EnvNameDotted",
     [](TFJob& j) {
       Tf(j).env.push_back({"my.env-name", "x", false});
     },
     {}},
    {"EnvValueFrom",
     [](TFJob& j) {
       Tf(j).env.push_back({"S", "", true});
     },
     {"FieldValueForbidden " + kWC + ".env[0].valueFrom"},
     "not supported by trainyard"},
    {"PortOutOfRange",
     [](TFJob& j) {
       Tf(j).ports.push_back({"p", 70000});
     },
     {"FieldValueInvalid " + kWC + ".ports[0].containerPort"}},
    {"PullPolicyUnknown",
     [](TFJob& j) { Tf(j).image_pull_policy = "Sometimes"; },
     {"FieldValueNotSupported " + kWC + ".imagePullPolicy"}},
    {"PullPolicyKnown", [](TFJob& j) { Tf(j).image_pull_policy = "IfNotPresent"; }, {}},
    // GPUs (docs/reference/kubeflow-tfjob.md §8) and other resources
    {"GpuFraction",
     [](TFJob& j) { Tf(j).limits["nvidia.com/gpu"] = "0.5"; },
     {"FieldValueInvalid " + kWC + ".resources.limits[nvidia.com/gpu]"},
     "whole"},
    {"GpuMilli",
     [](TFJob& j) { Tf(j).limits["nvidia.com/gpu"] = "500m"; },
     {"FieldValueInvalid " + kWC + ".resources.limits[nvidia.com/gpu]"}},
    {"GpuNegative",
     [](TFJob& j) { Tf(j).limits["nvidia.com/gpu"] = "-1"; },
     {"FieldValueInvalid " + kWC + ".resources.limits[nvidia.com/gpu]"}},
    {"GpuRequestEqualsLimit",
     [](TFJob& j) {
       Tf(j).limits["nvidia.com/gpu"] = "2";
       Tf(j).requests["nvidia.com/gpu"] = "2";
     },
     {}},
    {"GpuRequestDiffers",
     [](TFJob& j) {
       Tf(j).limits["nvidia.com/gpu"] = "2";
       Tf(j).requests["nvidia.com/gpu"] = "1";
     },
     {"FieldValueInvalid " + kWC + ".resources.requests[nvidia.com/gpu]"}},
    {"GpuRequestWithoutLimit",
     [](TFJob& j) { Tf(j).requests["nvidia.com/gpu"] = "1"; },
     {"FieldValueRequired " + kWC + ".resources.limits[nvidia.com/gpu]"}},
    {"AmdGpu",
     [](TFJob& j) { Tf(j).limits["amd.com/gpu"] = "1"; },
     {"FieldValueForbidden " + kWC + ".resources.limits[amd.com/gpu]"}},
    {"CpuMemory",
     [](TFJob& j) {
       Tf(j).limits["cpu"] = "500m";
       Tf(j).requests["memory"] = "4Gi";
     },
     {}},
    {"BadQuantity",
     [](TFJob& j) { Tf(j).limits["memory"] = "lots"; },
     {"FieldValueInvalid " + kWC + ".resources.limits[memory]"}},
    // run policy
    {"CleanPodPolicyUnknown",
     [](TFJob& j) { j.run_policy.clean_pod_policy = "Some"; },
     {"FieldValueNotSupported spec.runPolicy.cleanPodPolicy"},
     "supported values: \"All\", \"None\", \"Running\""},
    {"CleanPodPolicyV1Beta2",
     [](TFJob& j) {
       j.api_version = "kubeflow.org/v1beta2";
       j.run_policy.clean_pod_policy = "Some";
     },
     {"FieldValueNotSupported spec.cleanPodPolicy"}},
    {"BackoffNegative",
     [](TFJob& j) { j.run_policy.backoff_limit = -1; },
     {"FieldValueInvalid spec.runPolicy.backoffLimit"}},
    {"DeadlineNegative",
     [](TFJob& j) { j.run_policy.active_deadline_seconds = -5; },
     {"FieldValueInvalid spec.runPolicy.activeDeadlineSeconds"}},
    {"TtlNegative",
     [](TFJob& j) { j.run_policy.ttl_seconds_after_finished = -1; },
     {"FieldValueInvalid spec.runPolicy.ttlSecondsAfterFinished"}},
    {"MinAvailableNegative",
     [](TFJob& j) { j.run_policy.scheduling_policy = SchedulingPolicy{.min_available = -1}; },
     {"FieldValueInvalid spec.runPolicy.schedulingPolicy.minAvailable"}},
    // schedulingPolicy as trainyard honours it (kube/tfjob_scheduling.h).
    {"QueueOwnNamespace",
     [](TFJob& j) { j.run_policy.scheduling_policy = SchedulingPolicy{.queue = "team-a"}; },
     {}},
    {"QueueOtherProject",
     [](TFJob& j) { j.run_policy.scheduling_policy = SchedulingPolicy{.queue = "team-b"}; },
     {"FieldValueInvalid spec.runPolicy.schedulingPolicy.queue"},
     "Invalid value: \"team-b\": a queue is a project's quota and a TFJob runs in its "
     "namespace's project: the queue must be \"team-a\" (or unset)"},
    {"MinAvailableAllReplicas",
     [](TFJob& j) { j.run_policy.scheduling_policy = SchedulingPolicy{.min_available = 4}; },
     {}},
    {"MinAvailableFewer",
     [](TFJob& j) { j.run_policy.scheduling_policy = SchedulingPolicy{.min_available = 3}; },
     {"FieldValueInvalid spec.runPolicy.schedulingPolicy.minAvailable"},
     "Invalid value: 3: trainyard starts all 4 replicas together or none"},
    {"MinAvailableMore",
     [](TFJob& j) { j.run_policy.scheduling_policy = SchedulingPolicy{.min_available = 5}; },
     {"FieldValueInvalid spec.runPolicy.schedulingPolicy.minAvailable"},
     "must be at most the replicas' total, 4"},
    {"ScheduleTimeoutNegative",
     [](TFJob& j) {
       j.run_policy.scheduling_policy = SchedulingPolicy{.schedule_timeout_seconds = -1};
     },
     {"FieldValueInvalid spec.runPolicy.schedulingPolicy.scheduleTimeoutSeconds"}},
    {"MinResourcesBad",
     [](TFJob& j) {
       j.run_policy.scheduling_policy = SchedulingPolicy{.min_resources = {{"cpu", "x"}}};
     },
     {"FieldValueInvalid spec.runPolicy.schedulingPolicy.minResources[cpu]"}},
    {"ManagedByOperator",
     [](TFJob& j) { j.run_policy.managed_by = "kubeflow.org/training-operator"; },
     {}},
    {"ManagedByMultiKueue",
     [](TFJob& j) { j.run_policy.managed_by = "kueue.x-k8s.io/multikueue"; },
     {"FieldValueForbidden spec.runPolicy.managedBy"},
     "not supported by trainyard"},
    {"ManagedByOther",
     [](TFJob& j) { j.run_policy.managed_by = "me"; },
     {"FieldValueNotSupported spec.runPolicy.managedBy"}},
    {"SuccessPolicyAllWorkers", [](TFJob& j) { j.success_policy = "AllWorkers"; }, {}},
    {"SuccessPolicyUnknown",
     [](TFJob& j) { j.success_policy = "Chief"; },
     {"FieldValueNotSupported spec.successPolicy"}},
    {"DynamicWorker",
     [](TFJob& j) { j.enable_dynamic_worker = true; },
     {"FieldValueForbidden spec.enableDynamicWorker"},
     "not supported by trainyard"},
    {"UnsupportedField",
     [](TFJob& j) {
       j.unsupported.push_back({kWPod + ".volumes", "use gs:// paths"});
     },
     {"FieldValueForbidden " + kWPod + ".volumes"},
     "Forbidden: not supported by trainyard: use gs:// paths"},
};

INSTANTIATE_TEST_SUITE_P(Rules, ValidateTFJobTest, ::testing::ValuesIn(kRules),
                         [](const auto& tc) { return tc.param.name; });

struct UpdateCase {
  std::string name;
  std::function<void(TFJob&)> old_mutate;
  std::function<void(TFJob&)> new_mutate;
  std::vector<std::string> fields;
};

class ValidateUpdateTest : public ::testing::TestWithParam<UpdateCase> {};

TEST_P(ValidateUpdateTest, ImmutableFields) {
  TFJob old = testing::ValidTFJob();
  TFJob job = old;
  GetParam().old_mutate(old);
  GetParam().new_mutate(job);
  std::vector<std::string> fields;
  for (const StatusCause& cause : ValidateTFJob(job, &old)) {
    fields.push_back(cause.field);
    EXPECT_THAT(cause.message, HasSubstr("field is immutable"));
  }
  EXPECT_EQ(fields, GetParam().fields);
}

INSTANTIATE_TEST_SUITE_P(
    Updates, ValidateUpdateTest,
    ::testing::Values(
        UpdateCase{"Unchanged", [](TFJob&) {}, [](TFJob&) {}, {}},
        UpdateCase{
            "QueueChanged",
            [](TFJob& j) { j.run_policy.scheduling_policy = SchedulingPolicy{.queue = "team-a"}; },
            [](TFJob& j) { j.run_policy.scheduling_policy = SchedulingPolicy{}; },
            {"spec.runPolicy.schedulingPolicy.queue"}},
        UpdateCase{"ManagedByChanged",
                   [](TFJob&) {},
                   [](TFJob& j) { j.run_policy.managed_by = "kubeflow.org/training-operator"; },
                   {"spec.runPolicy.managedBy"}},
        UpdateCase{"ReplicasChanged",
                   [](TFJob&) {},
                   [](TFJob& j) { Spec(j, "Worker").replicas = 5; },
                   {}}),
    [](const auto& tc) { return tc.param.name; });

// Each label on its own, as Kubernetes checks them (no count limit there), in one pass.
TEST(ValidateTFJobTest, HundredThousandLabelsAreRefusedOneByOne) {
  TFJob job = testing::ValidTFJob();
  for (int i = 0; i < 100'000; ++i) {
    job.metadata.labels["l" + std::to_string(i)] = "-";
  }
  const std::vector<StatusCause> causes = ValidateTFJob(job, nullptr);
  EXPECT_EQ(causes.size(), 100'000U);
  EXPECT_EQ(causes.front().field, "metadata.labels[l0]");
}

TEST(ValidateTFJobTest, TheSeedManifestIsValid) {
  KubeResult<DecodedTFJob> decoded = DecodeTFJob(testing::SeedManifest());
  ASSERT_TRUE(decoded.ok());
  EXPECT_THAT(ValidateTFJob(decoded->job, nullptr), IsEmpty());
}

struct SyntaxCase {
  std::string text;
  bool dns1035;
  bool dns1123;
  bool qualified;
  bool quantity;
};

class SyntaxTest : public ::testing::TestWithParam<SyntaxCase> {};

TEST_P(SyntaxTest, MatchesKubernetes) {
  const SyntaxCase& c = GetParam();
  EXPECT_EQ(IsDns1035Label(c.text), c.dns1035);
  EXPECT_EQ(IsDns1123Label(c.text), c.dns1123);
  EXPECT_EQ(IsQualifiedName(c.text), c.qualified);
  EXPECT_EQ(IsQuantity(c.text), c.quantity);
}

INSTANTIATE_TEST_SUITE_P(
    Syntax, SyntaxTest,
    ::testing::Values(
        SyntaxCase{"abc", true, true, true, false}, SyntaxCase{"a-1", true, true, true, false},
        SyntaxCase{"1a", false, true, true, false}, SyntaxCase{"a-", false, false, false, false},
        SyntaxCase{"A", false, false, true, false}, SyntaxCase{"", false, false, false, false},
        SyntaxCase{"a.b/c_D", false, false, true, false},
        SyntaxCase{"A.b/c", false, false, false, false}, SyntaxCase{"1", false, true, true, true},
        SyntaxCase{"500m", false, true, true, true}, SyntaxCase{"4Gi", false, false, true, true},
        SyntaxCase{"1e3", false, true, true, true}, SyntaxCase{"0.5", false, false, true, true}),
    [](const auto& tc) {
      std::string name;
      for (const char c : tc.param.text) {
        name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
      }
      return "T" + name;
    });

}  // namespace
}  // namespace trainyard::kube

namespace trainyard::kube {
namespace {

// Where a request puts a TFJob: the URL's namespace and, on one object's URL, its name.
TEST(PlaceObjectTest, TheObjectGoesWhereTheUrlSays) {
  const struct {
    std::string_view name;
    std::string object_name;
    std::string object_namespace;
    std::string_view url_name;  // "" for the collection (a create)
    std::string refusal;        // "" when placed
  } cases[] = {
      {"CreateFillsTheNamespace", "x", "", "", ""},
      {"CreateInItsOwnNamespace", "x", "team", "", ""},
      {"CreateAnyName", "y", "team", "", ""},
      {"OtherNamespace", "x", "other", "",
       "the namespace of the provided object does not match the namespace sent on the request"},
      {"UpdateOfTheNamedObject", "x", "", "x", ""},
      {"UpdateUnderAnotherName", "y", "team", "x",
       "the name of the object (y) does not match the name on the URL (x)"},
      {"UpdateWithoutAName", "", "team", "x",
       "the name of the object () does not match the name on the URL (x)"},
  };
  for (const auto& c : cases) {
    ObjectMeta metadata{.name = c.object_name, .namespace_name = c.object_namespace};
    const std::optional<KubeError> refused = PlaceObject(metadata, "team", c.url_name);
    if (!c.refusal.empty()) {
      ASSERT_TRUE(refused.has_value()) << c.name;
      EXPECT_EQ(refused->code, 400) << c.name;
      EXPECT_EQ(refused->message, c.refusal) << c.name;
      continue;
    }
    EXPECT_FALSE(refused.has_value()) << c.name << ": " << refused->message;
    EXPECT_EQ(metadata.namespace_name, "team") << c.name;
    EXPECT_EQ(metadata.name, c.object_name) << c.name;
  }
}

}  // namespace
}  // namespace trainyard::kube
