// A Vertex AI create body made into the job to submit (vertex/prepare.h): decoded, checked with
// each violation at its place in the request, mapped with the spec the resource keeps.
#include "vertex/prepare.h"

#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "vertex/vertex_json.h"

namespace trainyard::vertex {
namespace {

constexpr std::string_view kPool = R"({"containerSpec": {"imageUri": "localhost/img:1"},
  "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": "1"})";

std::string CustomJobBody(std::string_view display_name, std::string_view replica_count) {
  return R"({"displayName": ")" + std::string(display_name) +
         R"(", "jobSpec": {"workerPoolSpecs": [{"containerSpec": {"imageUri": "localhost/img:1"},
         "machineSpec": {"machineType": "n1-standard-4"}, "replicaCount": ")" +
         std::string(replica_count) + R"("}]}, "labels": {"x": "y"}})";
}

std::string TuningJobBody(std::string_view display_name, std::string_view trial_pools) {
  return R"({"displayName": ")" + std::string(display_name) +
         R"(", "maxTrialCount": 4, "parallelTrialCount": 2,
  "studySpec": {"metrics": [{"goal": "MAXIMIZE", "metricId": "accuracy"}],
    "parameters": [{"doubleValueSpec": {"maxValue": 0.1, "minValue": 0.001}, "parameterId": "lr"},
                   {"integerValueSpec": {"maxValue": "4", "minValue": "1"}, "parameterId": "layers"}]},
  "trialJobSpec": {"workerPoolSpecs": [)" +
         std::string(trial_pools) + "]}}";
}

struct PrepareCase {
  std::string name;
  std::string_view kind;
  std::string body;
  Code code = Code::kOk;
  std::vector<std::string> violation_fields;  // where each violation is, in order
  std::string spec_path;                      // when it prepares
  std::vector<std::string> parameter_paths;   // when it prepares
  std::string document;                       // when it prepares: the spec the resource keeps
};

void PrintTo(const PrepareCase& tc, std::ostream* os) {
  *os << tc.name;
}

class PrepareCreateTest : public ::testing::TestWithParam<PrepareCase> {};

TEST_P(PrepareCreateTest, DecodesChecksAndMaps) {
  const PrepareCase& tc = GetParam();
  const Result<PreparedJob> prepared =
      PrepareCreate(tc.body, MappingContext{.job_id = {},
                                            .kind = std::string(tc.kind),
                                            .location = "us-central1",
                                            .document = {},
                                            .host_python_prefixes = DefaultHostPythonPrefixes(),
                                            .catalog = nullptr});
  ASSERT_EQ(prepared.status().code(), tc.code) << prepared.status().ToString();
  if (!prepared.ok()) {
    std::vector<std::string> fields;
    for (const FieldViolation& violation : prepared.status().violations()) {
      fields.push_back(violation.field);
    }
    EXPECT_EQ(fields, tc.violation_fields) << prepared.status().ToString();
    return;
  }
  EXPECT_EQ(prepared->spec_path, tc.spec_path);
  EXPECT_EQ(prepared->parameter_paths, tc.parameter_paths);
  ASSERT_TRUE(prepared->job.extras.has_value());
  ASSERT_TRUE(prepared->job.extras->vertex.has_value());
  const model::VertexResource& resource = *prepared->job.extras->vertex;
  EXPECT_EQ(resource.kind, tc.kind);
  EXPECT_EQ(resource.location, "us-central1");
  EXPECT_EQ(resource.display_name, "d1");
  EXPECT_EQ(resource.document, tc.document);
  EXPECT_TRUE(prepared->job.job_id.empty()) << "the id is the controller's to choose";
}

const std::string kTooLong(129, 'n');

INSTANTIATE_TEST_SUITE_P(
    Cases, PrepareCreateTest,
    ::testing::Values(
        PrepareCase{.name = "ValidCustomJob",
                    .kind = kCustomJobKind,
                    .body = CustomJobBody("d1", "1"),
                    .spec_path = "jobSpec",
                    .document = R"({"workerPoolSpecs":[{"containerSpec":{"imageUri":)"
                                R"("localhost/img:1"},"machineSpec":{"machineType":)"
                                R"("n1-standard-4"},"replicaCount":"1"}]})"},
        PrepareCase{.name = "ValidTuningJob",
                    .kind = kTuningJobKind,
                    .body = TuningJobBody("d1", kPool),
                    .spec_path = "trialJobSpec",
                    .parameter_paths = {"studySpec.parameters[0]", "studySpec.parameters[1]"},
                    .document = R"({"studySpec":{"metrics":[{"goal":"MAXIMIZE","metricId":)"
                                R"("accuracy"}],"parameters":[{"doubleValueSpec":{"maxValue":)"
                                R"(0.1,"minValue":0.001},"parameterId":"lr"},)"
                                R"({"integerValueSpec":{"maxValue":"4","minValue":"1"},)"
                                R"("parameterId":"layers"}]},"maxTrialCount":4,)"
                                R"("parallelTrialCount":2,"trialJobSpec":{"workerPoolSpecs":)"
                                R"([{"containerSpec":{"imageUri":"localhost/img:1"},)"
                                R"("machineSpec":{"machineType":"n1-standard-4"},)"
                                R"("replicaCount":"1"}]}})"},
        PrepareCase{.name = "CustomJobEmptyDisplayName",
                    .kind = kCustomJobKind,
                    .body = CustomJobBody("", "1"),
                    .code = Code::kInvalidArgument,
                    .violation_fields = {"displayName"}},
        PrepareCase{.name = "CustomJobDisplayNameTooLong",
                    .kind = kCustomJobKind,
                    .body = CustomJobBody(kTooLong, "1"),
                    .code = Code::kInvalidArgument,
                    .violation_fields = {"displayName"}},
        PrepareCase{.name = "CustomJobChiefWithTwoReplicas",
                    .kind = kCustomJobKind,
                    .body = CustomJobBody("d1", "2"),
                    .code = Code::kInvalidArgument,
                    .violation_fields = {"jobSpec.workerPoolSpecs[0].replicaCount"}},
        PrepareCase{.name = "CustomJobBothNameAndSpecInOrder",
                    .kind = kCustomJobKind,
                    .body = CustomJobBody("", "2"),
                    .code = Code::kInvalidArgument,
                    .violation_fields = {"displayName", "jobSpec.workerPoolSpecs[0].replicaCount"}},
        PrepareCase{
            .name = "TuningJobInvalidTrialSpec",
            .kind = kTuningJobKind,
            .body = TuningJobBody("d1", R"({"containerSpec": {"imageUri": "localhost/img:1"},
                                  "machineSpec": {"machineType": "n1-standard-4"},
                                  "replicaCount": "2"})"),
            .code = Code::kInvalidArgument,
            .violation_fields = {"trialJobSpec.workerPoolSpecs[0].replicaCount"}},
        PrepareCase{.name = "TuningJobEmptyDisplayName",
                    .kind = kTuningJobKind,
                    .body = TuningJobBody("", kPool),
                    .code = Code::kInvalidArgument,
                    .violation_fields = {"displayName"}},
        PrepareCase{.name = "UnknownFieldIsTheDecodersError",
                    .kind = kCustomJobKind,
                    .body = R"({"displayName": "d1", "jobSpek": {}})",
                    .code = Code::kInvalidArgument,
                    .violation_fields = {"root"}},
        PrepareCase{.name = "ACustomJobBodyIsNotATuningJob",
                    .kind = kTuningJobKind,
                    .body = CustomJobBody("d1", "1"),
                    .code = Code::kInvalidArgument,
                    .violation_fields = {"root"}},
        PrepareCase{.name = "AnotherKindIsInternal",
                    .kind = "TrainingPipeline",
                    .body = CustomJobBody("d1", "1"),
                    .code = Code::kInternal}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::vertex
