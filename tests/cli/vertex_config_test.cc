// Vertex AI `--config` files read as gcloud 528's apitools reads them: each YAML scalar typed by
// its field in data/vertex_fields.json. The expected JSON is what gcloud sent for the same files.
#include "cli/commands/vertex_config.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trainyard::cli {
namespace {

using nlohmann::json;

// A config text, the message it holds, and the JSON gcloud sent for it ("" when refused).
struct ConfigCase {
  std::string name;
  std::string message;
  std::string yaml;
  std::string json;
};

class VertexConfigTest : public ::testing::TestWithParam<ConfigCase> {};

TEST_P(VertexConfigTest, TypesEachScalarByItsField) {
  const ConfigCase& c = GetParam();
  auto parsed = ParseVertexConfig(c.yaml, c.message, "c.yaml");
  if (c.json.empty()) {
    ASSERT_FALSE(parsed.ok());
    EXPECT_NE(parsed.status().message().find("c.yaml"), std::string::npos)
        << parsed.status().message();
    return;
  }
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, json::parse(c.json));
}

INSTANTIATE_TEST_SUITE_P(
    Gcloud528, VertexConfigTest,
    ::testing::Values(
        ConfigCase{"Int64IsAStringInt32ANumber", "CustomJobSpec",
                   "workerPoolSpecs:\n- replicaCount: 2\n  machineSpec: {acceleratorCount: 4}\n"
                   "  diskSpec: {bootDiskSizeGb: '100'}\n",
                   R"({"workerPoolSpecs": [{"replicaCount": "2", "machineSpec":
                       {"acceleratorCount": 4}, "diskSpec": {"bootDiskSizeGb": 100}}]})"},
        ConfigCase{"StringsKeepTheirText", "CustomJobSpec",
                   "scheduling: {timeout: 3600s}\nworkerPoolSpecs:\n- containerSpec:\n"
                   "    imageUri: img:1.0\n    args: [1, true, '2.50']\n",
                   R"({"scheduling": {"timeout": "3600s"}, "workerPoolSpecs": [{"containerSpec":
                       {"imageUri": "img:1.0", "args": ["1", "true", "2.50"]}}]})"},
        ConfigCase{"BoolsAndEnvVars", "CustomJobSpec",
                   "enableWebAccess: false\nworkerPoolSpecs:\n- containerSpec:\n"
                   "    env: [{name: A, value: 1}]\n",
                   R"({"enableWebAccess": false, "workerPoolSpecs": [{"containerSpec":
                       {"env": [{"name": "A", "value": "1"}]}}]})"},
        ConfigCase{"AMappingForAListIsAListOfOne", "CustomJobSpec",
                   "workerPoolSpecs:\n  replicaCount: 1\n",
                   R"({"workerPoolSpecs": [{"replicaCount": "1"}]})"},
        ConfigCase{"UnknownFieldsAsYamlTypesThem", "CustomJobSpec",
                   "bogus: 1\nworkerPoolSpecs:\n- containerSpec: {imageUri: x, extra: [a, 2.5]}\n",
                   R"({"bogus": 1, "workerPoolSpecs": [{"containerSpec": {"imageUri": "x",
                       "extra": ["a", 2.5]}}]})"},
        ConfigCase{"StudyDoublesIntegersAndConditions", "HyperparameterTuningJob",
                   "maxTrialCount: 4\nlabels: {a: 1}\nstudySpec:\n  parameters:\n"
                   "  - doubleValueSpec: {minValue: 0, maxValue: 1}\n"
                   "    integerValueSpec: {minValue: 1}\n"
                   "    discreteValueSpec: {values: [16, 32]}\n"
                   "    conditionalParameterSpecs:\n"
                   "    - parentIntValues: {values: [2]}\n"
                   "      parameterSpec: {integerValueSpec: {maxValue: 8}}\n",
                   R"({"maxTrialCount": 4, "labels": {"a": "1"}, "studySpec": {"parameters":
                       [{"doubleValueSpec": {"minValue": 0.0, "maxValue": 1.0},
                         "integerValueSpec": {"minValue": "1"},
                         "discreteValueSpec": {"values": [16.0, 32.0]},
                         "conditionalParameterSpecs": [{"parentIntValues": {"values": ["2"]},
                           "parameterSpec": {"integerValueSpec": {"maxValue": "8"}}}]}]}})"},
        ConfigCase{"NullFieldsAreLeftOut", "CustomJobSpec", "network: ~\nserviceAccount: sa\n",
                   R"({"serviceAccount": "sa"})"},
        ConfigCase{"AnEmptyDocumentIsEmpty", "CustomJobSpec", "# nothing\n", "{}"},
        ConfigCase{"NotAMapping", "CustomJobSpec", "- a\n- b\n", ""},
        ConfigCase{"NotYaml", "CustomJobSpec", "workerPoolSpecs: [\n", ""}),
    [](const auto& tc) { return tc.param.name; });

TEST(VertexAcceleratorTypes, AreGcloudsNvidiaAndTpuNames) {
  const std::vector<std::string>& types = VertexAcceleratorTypes();
  ASSERT_FALSE(types.empty());
  EXPECT_TRUE(std::is_sorted(types.begin(), types.end()));
  EXPECT_NE(std::find(types.begin(), types.end(), "NVIDIA_TESLA_T4"), types.end());
  for (const std::string& type : types) {
    EXPECT_TRUE(type.starts_with("NVIDIA") || type.starts_with("TPU")) << type;
  }
}

}  // namespace
}  // namespace trainyard::cli
