#include "kube/tfjob_export.h"

#include <chrono>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "kube/tfjob_decode.h"
#include "kube/tfjob_fixtures.h"
#include "kube/tfjob_mapping.h"
#include "kube/tfjob_validate.h"

namespace trainyard::kube {
namespace {

using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

// A GPU container job as gcloud submits it: master 2 T4, 3 workers, 1 PS, a run-time limit.
model::Job ContainerJob() {
  model::Job job;
  job.job_id = "mnist_gpu_1";
  job.labels = {{"team", "ml"}, {"_odd", "x"}};
  model::TrainingInput& input = job.training_input.emplace();
  input.scale_tier = model::ScaleTier::kCustom;
  input.region = "us-central1";
  input.master_type = "n1-standard-8";
  input.master_config =
      model::ReplicaConfig{.accelerator_config = model::AcceleratorConfig{2, "NVIDIA_TESLA_T4"},
                           .image_uri = "gcr.io/p/trainer:1",
                           .container_command = {"python", "-m", "trainer.task"},
                           .container_args = {"--epochs=3"}};
  input.worker_type = "n1-standard-8";
  input.worker_count = 3;
  input.parameter_server_type = "n1-highmem-2";
  input.parameter_server_count = 1;
  input.scheduling = model::Scheduling{.max_running_time = std::chrono::seconds(7200),
                                       .max_wait_time = std::chrono::seconds(60)};
  return job;
}

// YAML -> JSON as kubectl converts a manifest: a quoted scalar (tag "!") stays a string, a plain
// one is read as an integer, boolean or null when it is one.
nlohmann::json ToJson(const YAML::Node& node) {
  if (node.IsMap()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& item : node) {
      out[item.first.as<std::string>()] = ToJson(item.second);
    }
    return out;
  }
  if (node.IsSequence()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& item : node) {
      out.push_back(ToJson(item));
    }
    return out;
  }
  if (node.IsNull()) {
    return nullptr;
  }
  const std::string text = node.Scalar();
  if (node.Tag() != "!") {
    if (text == "true" || text == "false") {
      return text == "true";
    }
    if (!text.empty() && text.find_first_not_of("-0123456789") == std::string::npos) {
      return std::stoll(text);
    }
  }
  return text;
}

YAML::Node Export(const model::Job& job) {
  Result<std::string> yaml = ExportTFJob(job, "team-a");
  EXPECT_TRUE(yaml.ok()) << yaml.status().ToString();
  return yaml.ok() ? YAML::Load(*yaml) : YAML::Node();
}

TEST(ExportTFJobTest, AContainerJobBecomesAChiefWorkerPsTFJob) {
  const YAML::Node tfjob = Export(ContainerJob());
  EXPECT_EQ(tfjob["apiVersion"].as<std::string>(), "kubeflow.org/v1");
  EXPECT_EQ(tfjob["kind"].as<std::string>(), "TFJob");
  EXPECT_EQ(tfjob["metadata"]["name"].as<std::string>(), "mnist-gpu-1");
  EXPECT_EQ(tfjob["metadata"]["namespace"].as<std::string>(), "team-a");
  EXPECT_EQ(tfjob["metadata"]["labels"]["team"].as<std::string>(), "ml");
  EXPECT_FALSE(tfjob["metadata"]["labels"]["_odd"]);
  const YAML::Node spec = tfjob["spec"];
  EXPECT_EQ(spec["runPolicy"]["cleanPodPolicy"].as<std::string>(), "Running");
  EXPECT_EQ(spec["runPolicy"]["activeDeadlineSeconds"].as<int>(), 7200);
  const YAML::Node chief = spec["tfReplicaSpecs"]["Chief"];
  EXPECT_EQ(chief["replicas"].as<int>(), 1);
  EXPECT_EQ(chief["restartPolicy"].as<std::string>(), "OnFailure");
  const YAML::Node container = chief["template"]["spec"]["containers"][0];
  EXPECT_EQ(container["name"].as<std::string>(), "tensorflow");
  EXPECT_EQ(container["image"].as<std::string>(), "gcr.io/p/trainer:1");
  EXPECT_EQ(container["command"][2].as<std::string>(), "trainer.task");
  EXPECT_EQ(container["args"][0].as<std::string>(), "--epochs=3");
  EXPECT_EQ(container["ports"][0]["name"].as<std::string>(), "tfjob-port");
  EXPECT_EQ(container["ports"][0]["containerPort"].as<int>(), 2222);
  EXPECT_EQ(container["resources"]["limits"]["nvidia.com/gpu"].as<std::string>(), "2");
  EXPECT_EQ(chief["template"]["spec"]["nodeSelector"]["cloud.google.com/gke-accelerator"]
                .as<std::string>(),
            "nvidia-tesla-t4");
  // Workers fall back to the master's config, as on AI Platform.
  EXPECT_EQ(spec["tfReplicaSpecs"]["Worker"]["replicas"].as<int>(), 3);
  EXPECT_EQ(spec["tfReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["image"]
                .as<std::string>(),
            "gcr.io/p/trainer:1");
  EXPECT_EQ(spec["tfReplicaSpecs"]["PS"]["replicas"].as<int>(), 1);
  EXPECT_FALSE(spec["tfReplicaSpecs"]["Evaluator"]);
}

TEST(ExportTFJobTest, SaysWhatItCannotCarry) {
  Result<std::string> yaml = ExportTFJob(ContainerJob(), "team-a");
  ASSERT_TRUE(yaml.ok());
  EXPECT_THAT(*yaml, HasSubstr("# trainyard: Chief machine n1-standard-8 (8 vCPUs"));
  EXPECT_THAT(*yaml, HasSubstr("# trainyard: scheduling.maxWaitTime has no TFJob field"));
  EXPECT_THAT(*yaml, HasSubstr("# trainyard: region us-central1"));
  EXPECT_THAT(*yaml, HasSubstr("# trainyard: label _odd=x is not a valid Kubernetes label"));
}

TEST(ExportTFJobTest, TheExportIsAValidTFJobThatMapsBack) {
  Result<std::string> yaml = ExportTFJob(ContainerJob(), "team-a");
  ASSERT_TRUE(yaml.ok());
  KubeResult<DecodedTFJob> decoded = DecodeTFJob(ToJson(YAML::Load(*yaml)).dump());
  ASSERT_TRUE(decoded.ok()) << decoded.error().message;
  EXPECT_THAT(decoded->unknown_fields, IsEmpty());
  EXPECT_THAT(ValidateTFJob(decoded->job, nullptr), IsEmpty());
  Result<model::Job> back = ToJob(decoded->job, MappingContext{.job_id = "mnist_gpu_1"});
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->training_input->worker_count, 3);
  EXPECT_EQ(back->training_input->master_config->accelerator_config,
            (model::AcceleratorConfig{2, "NVIDIA_TESLA_T4"}));
}

TEST(ExportTFJobTest, APythonModuleJobIsRefusedNamingTheFields) {
  model::Job job;
  job.job_id = "census";
  model::TrainingInput& input = job.training_input.emplace();
  input.package_uris = {"gs://b/trainer-0.1.tar.gz"};
  input.python_module = "trainer.task";
  input.runtime_version = "2.11";
  Result<std::string> yaml = ExportTFJob(job, "team-a");
  ASSERT_FALSE(yaml.ok());
  EXPECT_EQ(yaml.status().code(), Code::kFailedPrecondition);
  EXPECT_THAT(yaml.status().message(), HasSubstr("trainingInput.packageUris"));
  EXPECT_THAT(yaml.status().message(), HasSubstr("trainingInput.pythonModule"));
  EXPECT_THAT(yaml.status().message(), HasSubstr("container image"));
  EXPECT_THAT(yaml.status().message(), HasSubstr("masterConfig.imageUri"));
}

TEST(ExportTFJobTest, RefusesStudiesTpusAndBadNames) {
  model::Job study = ContainerJob();
  study.training_input->hyperparameters.emplace();
  EXPECT_THAT(ExportTFJob(study, "a").status().message(), HasSubstr("hyperparameters"));
  model::Job tpu = ContainerJob();
  tpu.training_input->master_config->accelerator_config = model::AcceleratorConfig{8, "TPU_V2"};
  EXPECT_THAT(ExportTFJob(tpu, "a").status().message(), HasSubstr("TPU_V2"));
  model::Job named = ContainerJob();
  named.job_id = "job_";
  EXPECT_THAT(ExportTFJob(named, "a").status().message(), HasSubstr("not a Kubernetes name"));
}

TEST(ExportTFJobTest, KeepsTheRoleRulesOfExtras) {
  model::Job job = ContainerJob();
  job.extras.emplace();
  job.extras->master.restart = model::RestartRule::kExitCode;
  job.extras->master.env = {{"A", "1"}};
  job.extras->backoff_limit = 4;
  job.extras->success = model::SuccessRule::kAllWorkers;
  const YAML::Node tfjob = Export(job);
  const YAML::Node chief = tfjob["spec"]["tfReplicaSpecs"]["Chief"];
  EXPECT_EQ(chief["restartPolicy"].as<std::string>(), "ExitCode");
  EXPECT_EQ(chief["template"]["spec"]["containers"][0]["env"][0]["name"].as<std::string>(), "A");
  EXPECT_EQ(tfjob["spec"]["runPolicy"]["backoffLimit"].as<int>(), 4);
  EXPECT_EQ(tfjob["spec"]["successPolicy"].as<std::string>(), "AllWorkers");
}

TEST(ExportTFJobTest, AJobFromTheSeedGivesBackItsDocumentAsV1) {
  const TFJob seed = DecodeTFJob(testing::SeedManifest())->job;
  Result<model::Job> job = ToJob(
      seed,
      MappingContext{.job_id = "nvidiatfjob", .uid = "u", .document = EncodeTFJob(seed, nullptr)});
  ASSERT_TRUE(job.ok());
  Result<std::string> yaml = ExportTFJob(*job, "");
  ASSERT_TRUE(yaml.ok()) << yaml.status().ToString();
  EXPECT_THAT(*yaml, Not(HasSubstr("# trainyard:")));
  const YAML::Node tfjob = YAML::Load(*yaml);
  EXPECT_EQ(tfjob["apiVersion"].as<std::string>(), "kubeflow.org/v1");
  EXPECT_EQ(tfjob["metadata"]["namespace"].as<std::string>(), "default");
  EXPECT_EQ(tfjob["spec"]["runPolicy"]["cleanPodPolicy"].as<std::string>(), "Running");
  EXPECT_FALSE(tfjob["spec"]["cleanPodPolicy"]);
  EXPECT_EQ(tfjob["spec"]["tfReplicaSpecs"]["Worker"]["replicas"].as<int>(), 4);
  EXPECT_EQ(tfjob["spec"]["tfReplicaSpecs"]["PS"]["restartPolicy"].as<std::string>(), "OnFailure");
  // Strings that YAML would read as numbers or booleans stay strings.
  EXPECT_EQ(tfjob["spec"]["tfReplicaSpecs"]["PS"]["template"]["spec"]["containers"][0]["resources"]
                 ["limits"]["nvidia.com/gpu"]
                     .as<std::string>(),
            "1");
  EXPECT_THAT(*yaml, HasSubstr("nvidia.com/gpu: \"1\""));
}

}  // namespace
}  // namespace trainyard::kube
