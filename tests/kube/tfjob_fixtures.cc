#include "kube/tfjob_fixtures.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "kube/tfjob_decode.h"
#include "os/file.h"
#include "support/build_paths.h"

namespace trainyard::kube::testing {

std::string Manifest(std::string_view spec, std::string_view version) {
  return fmt::format(
      R"({{"apiVersion": "{}", "kind": "TFJob",
          "metadata": {{"name": "mnist", "namespace": "team-a"}}, "spec": {}}})",
      version, spec);
}

std::string ChiefWorkerPsSpec() {
  return R"({
    "runPolicy": {"cleanPodPolicy": "Running", "backoffLimit": 3},
    "tfReplicaSpecs": {
      "Chief": {"replicas": 1, "restartPolicy": "OnFailure", "template": {"spec": {
        "containers": [{"name": "tensorflow", "image": "registry.local/trainer:1.0",
                        "command": ["python", "-m", "trainer.task"], "args": ["--job-dir=/out"],
                        "env": [{"name": "MODE", "value": "train"}],
                        "resources": {"limits": {"nvidia.com/gpu": 1}}}],
        "nodeSelector": {"accelerator": "nvidia-tesla-t4"}}}},
      "Worker": {"replicas": 2, "template": {"spec": {
        "containers": [{"name": "tensorflow", "image": "registry.local/trainer:1.0"}]}}},
      "PS": {"replicas": 1, "template": {"spec": {
        "containers": [{"name": "tensorflow", "image": "registry.local/trainer:1.0"}]}}}
    }})";
}

std::string SeedManifest() {
  const std::optional<std::string> text = os::ReadFileText(
      ::trainyard::testing::SourceDir() + "/tests/kube/testdata/seed_v1beta2.json");
  EXPECT_TRUE(text.has_value()) << "missing tests/kube/testdata/seed_v1beta2.json";
  return text.value_or("");
}

TFJob ValidTFJob() {
  KubeResult<DecodedTFJob> decoded = DecodeTFJob(Manifest(ChiefWorkerPsSpec()));
  EXPECT_TRUE(decoded.ok()) << (decoded.ok() ? "" : decoded.error().message);
  return decoded.ok() ? decoded->job : TFJob{};
}

}  // namespace trainyard::kube::testing
