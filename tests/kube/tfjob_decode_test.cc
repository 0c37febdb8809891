#include "kube/tfjob_decode.h"

#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "kube/tfjob_fixtures.h"

namespace trainyard::kube {
namespace {

using nlohmann::json;
using testing::ChiefWorkerPsSpec;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::Manifest;

DecodedTFJob MustDecode(const std::string& body) {
  KubeResult<DecodedTFJob> decoded = DecodeTFJob(body);
  EXPECT_TRUE(decoded.ok()) << (decoded.ok() ? "" : decoded.error().message);
  return decoded.ok() ? *decoded : DecodedTFJob{};
}

std::vector<std::string> Types(const TFJob& job) {
  std::vector<std::string> types;
  for (const ReplicaSpec& spec : job.replica_specs) {
    types.push_back(spec.type);
  }
  return types;
}

TEST(DecodeTFJobTest, ReadsTheV1Example) {
  const DecodedTFJob decoded = MustDecode(Manifest(ChiefWorkerPsSpec()));
  const TFJob& job = decoded.job;
  EXPECT_EQ(job.api_version, "kubeflow.org/v1");
  EXPECT_EQ(job.metadata.name, "mnist");
  EXPECT_EQ(job.metadata.namespace_name, "team-a");
  EXPECT_EQ(job.run_policy.clean_pod_policy, "Running");
  EXPECT_EQ(job.run_policy.backoff_limit, 3);
  EXPECT_THAT(Types(job), ElementsAre("Chief", "PS", "Worker"));  // canonical order
  const ReplicaSpec& chief = *job.Find("Chief");
  EXPECT_EQ(chief.restart_policy, "OnFailure");
  ASSERT_EQ(chief.template_.containers.size(), 1U);
  const Container& container = chief.template_.containers[0];
  EXPECT_EQ(container.image, "registry.local/trainer:1.0");
  EXPECT_THAT(container.command, ElementsAre("python", "-m", "trainer.task"));
  EXPECT_THAT(container.args, ElementsAre("--job-dir=/out"));
  EXPECT_EQ(container.env, (std::vector<EnvVar>{{"MODE", "train", false}}));
  EXPECT_EQ(container.limits.at("nvidia.com/gpu"), "1");  // a JSON number, kept as its text
  EXPECT_EQ(chief.template_.node_selector.at("accelerator"), "nvidia-tesla-t4");
  // Defaults of the operator.
  EXPECT_EQ(job.Find("Worker")->restart_policy, "Never");
  EXPECT_EQ(job.Find("PS")->replicas, 1);
  EXPECT_THAT(decoded.unknown_fields, IsEmpty());
  EXPECT_THAT(decoded.warnings, IsEmpty());
  EXPECT_THAT(job.unsupported, IsEmpty());
}

struct KeyCase {
  std::string key;
  std::string canonical;
};

class ReplicaKeyTest : public ::testing::TestWithParam<KeyCase> {};

TEST_P(ReplicaKeyTest, KeysAreCanonicalisedIgnoringCase) {
  const DecodedTFJob decoded = MustDecode(Manifest(
      R"({"tfReplicaSpecs": {")" + GetParam().key +
      R"(": {"template": {"spec": {"containers": [{"name": "tensorflow", "image": "i"}]}}}}})"));
  EXPECT_THAT(Types(decoded.job), ElementsAre(GetParam().canonical));
}

INSTANTIATE_TEST_SUITE_P(Keys, ReplicaKeyTest,
                         ::testing::Values(KeyCase{"ps", "PS"}, KeyCase{"Ps", "PS"},
                                           KeyCase{"worker", "Worker"}, KeyCase{"WORKER", "Worker"},
                                           KeyCase{"chief", "Chief"}, KeyCase{"master", "Master"},
                                           KeyCase{"evaluator", "Evaluator"},
                                           KeyCase{"Launcher", "Launcher"}),  // left for validation
                         [](const auto& tc) { return tc.param.key; });

TEST(DecodeTFJobTest, V1Beta2ReadsFlatRunPolicyFields) {
  const DecodedTFJob decoded = MustDecode(Manifest(
      R"({"cleanPodPolicy": "All", "backoffLimit": 2, "activeDeadlineSeconds": 600,
          "ttlSecondsAfterFinished": 60,
          "tfReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "i"}]}}}}})",
      "kubeflow.org/v1beta2"));
  const RunPolicy& policy = decoded.job.run_policy;
  EXPECT_EQ(decoded.job.api_version, "kubeflow.org/v1beta2");
  EXPECT_EQ(policy.clean_pod_policy, "All");
  EXPECT_EQ(policy.backoff_limit, 2);
  EXPECT_EQ(policy.active_deadline_seconds, 600);
  EXPECT_EQ(policy.ttl_seconds_after_finished, 60);
  EXPECT_THAT(decoded.warnings, IsEmpty());
}

TEST(DecodeTFJobTest, V1Beta2HasNoRunPolicyBlock) {
  const DecodedTFJob decoded = MustDecode(Manifest(
      R"({"runPolicy": {"suspend": true}, "successPolicy": "AllWorkers",
          "tfReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "i"}]}}}}})",
      "kubeflow.org/v1beta2"));
  EXPECT_FALSE(decoded.job.run_policy.suspend);
  EXPECT_THAT(decoded.unknown_fields, ElementsAre("spec.runPolicy", "spec.successPolicy"));
}

TEST(DecodeTFJobTest, OldV1FlatFieldsAreReadWithoutRunPolicy) {
  const DecodedTFJob decoded = MustDecode(Manifest(
      R"({"cleanPodPolicy": "None", "backoffLimit": 1,
          "tfReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "i"}]}}}}})"));
  EXPECT_EQ(decoded.job.run_policy.clean_pod_policy, "None");
  EXPECT_EQ(decoded.job.run_policy.backoff_limit, 1);
  EXPECT_THAT(decoded.warnings, IsEmpty());
}

TEST(DecodeTFJobTest, FlatFieldsNextToRunPolicyAreIgnoredWithAWarning) {
  const DecodedTFJob decoded = MustDecode(Manifest(
      R"({"cleanPodPolicy": "All", "backoffLimit": 1, "runPolicy": {"backoffLimit": 5},
          "tfReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "i"}]}}}}})"));
  EXPECT_EQ(decoded.job.run_policy.backoff_limit, 5);
  EXPECT_EQ(decoded.job.run_policy.clean_pod_policy, std::nullopt);
  EXPECT_THAT(decoded.warnings,
              ElementsAre("spec.backoffLimit is ignored because spec.runPolicy is given; move "
                          "it to spec.runPolicy.backoffLimit",
                          "spec.cleanPodPolicy is ignored because spec.runPolicy is given; "
                          "move it to spec.runPolicy.cleanPodPolicy"));
}

TEST(DecodeTFJobTest, ReadsEveryRunPolicyField) {
  const DecodedTFJob decoded = MustDecode(Manifest(
      R"({"runPolicy": {"cleanPodPolicy": "All", "ttlSecondsAfterFinished": 10,
          "activeDeadlineSeconds": 20, "backoffLimit": 3, "suspend": true,
          "managedBy": "kubeflow.org/training-operator",
          "schedulingPolicy": {"minAvailable": 2, "queue": "q", "priorityClass": "high",
                               "minResources": {"cpu": "2", "memory": 1024},
                               "scheduleTimeoutSeconds": 30}},
          "successPolicy": "AllWorkers", "enableDynamicWorker": true,
          "tfReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "i"}]}}}}})"));
  const RunPolicy& policy = decoded.job.run_policy;
  EXPECT_EQ(policy.ttl_seconds_after_finished, 10);
  EXPECT_EQ(policy.active_deadline_seconds, 20);
  EXPECT_TRUE(policy.suspend);
  EXPECT_EQ(policy.managed_by, "kubeflow.org/training-operator");
  ASSERT_TRUE(policy.scheduling_policy.has_value());
  EXPECT_EQ(policy.scheduling_policy->min_available, 2);
  EXPECT_EQ(policy.scheduling_policy->queue, "q");
  EXPECT_EQ(policy.scheduling_policy->priority_class, "high");
  EXPECT_EQ(policy.scheduling_policy->min_resources, (StringMap{{"cpu", "2"}, {"memory", "1024"}}));
  EXPECT_EQ(policy.scheduling_policy->schedule_timeout_seconds, 30);
  EXPECT_EQ(decoded.job.success_policy, "AllWorkers");
  EXPECT_TRUE(decoded.job.enable_dynamic_worker);
}

struct DecodeErrorCase {
  std::string name;
  std::string body;
  std::string message;  // a substring of the 400's message
};

class DecodeErrorTest : public ::testing::TestWithParam<DecodeErrorCase> {};

TEST_P(DecodeErrorTest, IsABadRequest) {
  KubeResult<DecodedTFJob> decoded = DecodeTFJob(GetParam().body);
  ASSERT_FALSE(decoded.ok());
  EXPECT_EQ(decoded.error().code, 400);
  EXPECT_EQ(decoded.error().reason, "BadRequest");
  EXPECT_THAT(decoded.error().message, HasSubstr(GetParam().message));
}

const std::string kWorkerSpec =
    R"("Worker": {"template": {"spec": {"containers": [{"name": "tensorflow", "image": "i"}]}}})";

INSTANTIATE_TEST_SUITE_P(
    Errors, DecodeErrorTest,
    ::testing::Values(
        DecodeErrorCase{"NotJson", "{nope", "json parse error"},
        DecodeErrorCase{"NotAnObject", "[1]", "json parse error"},
        DecodeErrorCase{"NoKind", R"({"apiVersion": "kubeflow.org/v1"})",
                        "Object 'Kind' is missing"},
        DecodeErrorCase{"OtherVersion", Manifest("{}", "kubeflow.org/v2"),
                        "the API version in the data (kubeflow.org/v2) does not match the expected "
                        "API version (kubeflow.org/v1 or kubeflow.org/v1beta2)"},
        DecodeErrorCase{"OtherKind", R"({"apiVersion": "kubeflow.org/v1", "kind": "PyTorchJob"})",
                        "the kind in the data (PyTorchJob)"},
        DecodeErrorCase{
            "ReplicasString", Manifest(R"({"tfReplicaSpecs": {"Worker": {"replicas": "2"}}})"),
            "TFJob in version \"v1\" cannot be handled as a TFJob: json: cannot unmarshal "
            "string into Go struct field ReplicaSpec.spec.tfReplicaSpecs.Worker.replicas "
            "of type int32"},
        DecodeErrorCase{"ReplicasOutOfRange",
                        Manifest(R"({"tfReplicaSpecs": {"Worker": {"replicas": 3000000000}}})"),
                        "cannot unmarshal number 3000000000 into Go struct field "
                        "ReplicaSpec.spec.tfReplicaSpecs.Worker.replicas of type int32"},
        DecodeErrorCase{"ReplicasFraction",
                        Manifest(R"({"tfReplicaSpecs": {"Worker": {"replicas": 1.5}}})"),
                        "cannot unmarshal number 1.5"},
        DecodeErrorCase{
            "V1Beta2Version",
            Manifest(R"({"backoffLimit": "x", "tfReplicaSpecs": {}})", "kubeflow.org/v1beta2"),
            "TFJob in version \"v1beta2\" cannot be handled as a TFJob: json: cannot "
            "unmarshal string into Go struct field TFJobSpec.spec.backoffLimit of type "
            "int32"},
        DecodeErrorCase{"SuspendString", Manifest(R"({"runPolicy": {"suspend": "yes"}})"),
                        "Go struct field RunPolicy.spec.runPolicy.suspend of type bool"},
        DecodeErrorCase{"ArgsNotStrings",
                        Manifest(R"({"tfReplicaSpecs": {"Worker": {"template": {"spec": {
                    "containers": [{"name": "tensorflow", "image": "i", "args": [1]}]}}}}})"),
                        "of type string"},
        DecodeErrorCase{"ContainersObject",
                        Manifest(R"({"tfReplicaSpecs": {"Worker": {"template": {"spec": {
                    "containers": {"name": "tensorflow"}}}}}})"),
                        "cannot unmarshal object into Go struct field "
                        "PodSpec.spec.tfReplicaSpecs.Worker.template.spec.containers of type "
                        "[]v1.Container"},
        DecodeErrorCase{"LabelsNumber",
                        R"({"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
                      "metadata": {"name": "x", "labels": {"a": 1}}})",
                        "of type string"},
        DecodeErrorCase{"BadTimestamp",
                        R"({"apiVersion": "kubeflow.org/v1", "kind": "TFJob",
                      "metadata": {"name": "x", "creationTimestamp": "yesterday"}})",
                        "parsing time"},
        DecodeErrorCase{"GpuBool", Manifest(R"({"tfReplicaSpecs": {"Worker": {"template": {"spec": {
                    "containers": [{"name": "tensorflow", "image": "i",
                                    "resources": {"limits": {"nvidia.com/gpu": true}}}]}}}}})"),
                        "of type resource.Quantity"}),
    [](const auto& tc) { return tc.param.name; });

TEST(DecodeTFJobTest, ListsUnknownFieldsAsStrictDecodingNamesThem) {
  const DecodedTFJob decoded = MustDecode(Manifest(
      R"({"extra": 1, "runPolicy": {"retries": 1},
          "tfReplicaSpecs": {"worker": {"nodeSelector": {"a": "b"}, "template": {
            "metadata": {"creationTimestamp": null, "colour": "red"},
            "spec": {"imagePullPolicy": "Always", "containers": [
              {"name": "tensorflow", "image": "i", "colour": "red",
               "env": [{"name": "A", "value": "1", "colour": "red"}]}]}}}}})"));
  EXPECT_THAT(
      decoded.unknown_fields,
      ElementsAre("spec.extra", "spec.runPolicy.retries", "spec.tfReplicaSpecs.Worker.nodeSelector",
                  "spec.tfReplicaSpecs.Worker.template.metadata.colour",
                  "spec.tfReplicaSpecs.Worker.template.spec.containers[0].colour",
                  "spec.tfReplicaSpecs.Worker.template.spec.containers[0].env[0].colour",
                  "spec.tfReplicaSpecs.Worker.template.spec.imagePullPolicy"));
}

TEST(DecodeTFJobTest, StatusAndServerBookkeepingAreNotUnknown) {
  const DecodedTFJob decoded = MustDecode(
      R"({"apiVersion": "kubeflow.org/v1", "kind": "TFJob", "status": {"conditions": []},
          "metadata": {"name": "x", "uid": "u", "resourceVersion": "7", "generation": 2,
                       "creationTimestamp": "2025-01-01T10:00:00Z", "selfLink": "/x",
                       "managedFields": [],
                       "annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
          "spec": {"tfReplicaSpecs": {)" +
      kWorkerSpec + "}}}");
  EXPECT_THAT(decoded.unknown_fields, IsEmpty());
  EXPECT_EQ(decoded.job.metadata.uid, "u");
  EXPECT_EQ(decoded.job.metadata.resource_version, "7");
  EXPECT_EQ(decoded.job.metadata.generation, 2);
  EXPECT_TRUE(decoded.job.metadata.creation_timestamp.has_value());
}

TEST(DecodeTFJobTest, RecordsFieldsTrainyardCannotHonour) {
  const DecodedTFJob decoded = MustDecode(Manifest(
      R"({"tfReplicaSpecs": {"Worker": {"template": {"spec": {
            "volumes": [], "affinity": {}, "tolerations": [], "initContainers": [],
            "securityContext": {}, "dnsPolicy": "ClusterFirst",
            "containers": [{"name": "tensorflow", "image": "i", "volumeMounts": [],
                            "envFrom": [], "livenessProbe": {},
                            "ports": [{"containerPort": 2222, "hostPort": 80}],
                            "resources": {"claims": []},
                            "imagePullPolicy": "IfNotPresent",
                            "terminationMessagePolicy": "File"}]}}}}})"));
  std::vector<std::string> fields;
  for (const UnsupportedField& field : decoded.job.unsupported) {
    fields.push_back(field.field);
    EXPECT_FALSE(field.why.empty()) << field.field;
  }
  const std::string at = "spec.tfReplicaSpecs[Worker].template.spec";
  EXPECT_THAT(fields, ElementsAre(at + ".affinity", at + ".containers[0].envFrom",
                                  at + ".containers[0].livenessProbe",
                                  at + ".containers[0].ports[0].hostPort",
                                  at + ".containers[0].resources.claims",
                                  at + ".containers[0].volumeMounts", at + ".initContainers",
                                  at + ".securityContext", at + ".tolerations", at + ".volumes"));
  EXPECT_THAT(decoded.unknown_fields, IsEmpty());  // dnsPolicy is harmless
}

TEST(DecodeTFJobTest, EnvValueFromIsKeptForValidationToRefuse) {
  const DecodedTFJob decoded = MustDecode(Manifest(
      R"({"tfReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "i",
             "env": [{"name": "S", "valueFrom": {"secretKeyRef": {"name": "s"}}}]}]}}}}})"));
  const Container& container = decoded.job.Find("Worker")->template_.containers[0];
  ASSERT_EQ(container.env.size(), 1U);
  EXPECT_TRUE(container.env[0].value_from);
}

TEST(DecodeTFJobTest, TheSeedManifestDecodesWithItsMisplacedFieldsUnknown) {
  const DecodedTFJob decoded = MustDecode(testing::SeedManifest());
  EXPECT_EQ(decoded.job.api_version, "kubeflow.org/v1beta2");
  EXPECT_EQ(decoded.job.metadata.labels, (StringMap{{"experiment", "experiment"}}));
  EXPECT_THAT(Types(decoded.job), ElementsAre("PS", "Worker"));
  EXPECT_EQ(decoded.job.Find("Worker")->replicas, 4);
  EXPECT_EQ(decoded.job.Find("PS")->restart_policy, "OnFailure");
  EXPECT_THAT(decoded.unknown_fields,
              ElementsAre("spec.tfReplicaSpecs.PS.nodeSelector",
                          "spec.tfReplicaSpecs.PS.template.spec.imagePullPolicy",
                          "spec.tfReplicaSpecs.Worker.imagePullPolicy",
                          "spec.tfReplicaSpecs.Worker.nodeSelector"));
  EXPECT_THAT(decoded.job.unsupported, IsEmpty());
}

TEST(EncodeTFJobTest, FillsTheOperatorsDefaults) {
  const DecodedTFJob decoded = MustDecode(Manifest(
      R"({"tfReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "i"}]}}}}})"));
  const json out = json::parse(EncodeTFJob(decoded.job, nullptr));
  EXPECT_EQ(out, json::parse(R"({
    "apiVersion": "kubeflow.org/v1", "kind": "TFJob",
    "metadata": {"name": "mnist", "namespace": "team-a"},
    "spec": {
      "runPolicy": {"cleanPodPolicy": "None", "suspend": false},
      "successPolicy": "",
      "tfReplicaSpecs": {"Worker": {"replicas": 1, "restartPolicy": "Never", "template": {
        "metadata": {"creationTimestamp": null},
        "spec": {"containers": [{"name": "tensorflow", "image": "i",
          "ports": [{"name": "tfjob-port", "containerPort": 2222}], "resources": {}}]}}}}}})"));
}

TEST(EncodeTFJobTest, V1Beta2KeepsItsFlatLayoutAndDefault) {
  const DecodedTFJob decoded = MustDecode(Manifest(
      R"({"backoffLimit": 2, "tfReplicaSpecs": {"Worker": {"template": {"spec": {"containers": [
            {"name": "tensorflow", "image": "i"}]}}}}})",
      "kubeflow.org/v1beta2"));
  const json out = json::parse(EncodeTFJob(decoded.job, nullptr));
  EXPECT_EQ(out["spec"]["cleanPodPolicy"], "Running");
  EXPECT_EQ(out["spec"]["backoffLimit"], 2);
  EXPECT_FALSE(out["spec"].contains("runPolicy"));
}

TEST(EncodeTFJobTest, RoundTripsThroughTheDecoder) {
  for (const std::string& body : {Manifest(ChiefWorkerPsSpec()), testing::SeedManifest()}) {
    const DecodedTFJob first = MustDecode(body);
    const DecodedTFJob second = MustDecode(EncodeTFJob(first.job, nullptr));
    TFJob expected = first.job;
    // What the encoder adds: the default cleanPodPolicy and the tensorflow container's port.
    expected.run_policy.clean_pod_policy = first.job.run_policy.clean_pod_policy.value_or(
        first.job.api_version == kApiVersionV1Beta2 ? "Running" : "None");
    for (ReplicaSpec& spec : expected.replica_specs) {
      for (Container& container : spec.template_.containers) {
        if (container.ports.empty()) {
          container.ports.push_back({"tfjob-port", 2222});
        }
      }
    }
    EXPECT_EQ(second.job, expected);
    EXPECT_THAT(second.unknown_fields, IsEmpty());
  }
}

}  // namespace
}  // namespace trainyard::kube
