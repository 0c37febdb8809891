#include "kube/kube_status.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace trainyard::kube {
namespace {

using nlohmann::json;

struct ErrorCase {
  std::string name;
  KubeError error;
  int code;
  std::string reason;
  std::string message;
};

class KubeErrorTest : public ::testing::TestWithParam<ErrorCase> {};

TEST_P(KubeErrorTest, CodeReasonAndMessageAreApimachinerys) {
  const ErrorCase& c = GetParam();
  EXPECT_EQ(c.error.code, c.code);
  EXPECT_EQ(c.error.reason, c.reason);
  EXPECT_EQ(c.error.message, c.message);
}

const StatusCause kImage{.reason = "FieldValueRequired",
                         .message = "Required value",
                         .field = "spec.tfReplicaSpecs[Worker].template.spec.containers[0].image"};
const StatusCause kPolicy{.reason = "FieldValueNotSupported",
                          .message =
                              "Unsupported value: \"Sometimes\": supported values: "
                              "\"Always\", \"ExitCode\", \"Never\", \"OnFailure\"",
                          .field = "spec.tfReplicaSpecs[Worker].restartPolicy"};

INSTANTIATE_TEST_SUITE_P(
    Factories, KubeErrorTest,
    ::testing::Values(
        ErrorCase{"NotFound", NotFound("kubeflow.org", "tfjobs", "x"), 404, "NotFound",
                  "tfjobs.kubeflow.org \"x\" not found"},
        ErrorCase{"NotFoundCore", NotFound("", "pods", "x-worker-0"), 404, "NotFound",
                  "pods \"x-worker-0\" not found"},
        ErrorCase{"AlreadyExists", AlreadyExists("kubeflow.org", "tfjobs", "x"), 409,
                  "AlreadyExists", "tfjobs.kubeflow.org \"x\" already exists"},
        ErrorCase{"Conflict",
                  Conflict("kubeflow.org", "tfjobs", "x",
                           "the object has been modified; please apply your changes to the "
                           "latest version and try again"),
                  409, "Conflict",
                  "Operation cannot be fulfilled on tfjobs.kubeflow.org \"x\": the object has "
                  "been modified; please apply your changes to the latest version and try "
                  "again"},
        ErrorCase{"InvalidOneCause", Invalid("TFJob", "kubeflow.org", "x", {kImage}), 422,
                  "Invalid",
                  "TFJob.kubeflow.org \"x\" is invalid: "
                  "spec.tfReplicaSpecs[Worker].template.spec.containers[0].image: Required "
                  "value"},
        ErrorCase{"InvalidTwoCauses", Invalid("TFJob", "kubeflow.org", "x", {kImage, kPolicy}), 422,
                  "Invalid",
                  "TFJob.kubeflow.org \"x\" is invalid: "
                  "[spec.tfReplicaSpecs[Worker].template.spec.containers[0].image: Required "
                  "value, spec.tfReplicaSpecs[Worker].restartPolicy: Unsupported value: "
                  "\"Sometimes\": supported values: \"Always\", \"ExitCode\", \"Never\", "
                  "\"OnFailure\"]"},
        ErrorCase{"BadRequest", BadRequest("bad"), 400, "BadRequest", "bad"},
        ErrorCase{"MethodNotAllowed", MethodNotAllowed("PUT"), 405, "MethodNotAllowed",
                  "the server does not allow this method on the requested resource (PUT)"},
        ErrorCase{"Forbidden", Forbidden("no"), 403, "Forbidden", "no"},
        ErrorCase{"NotAcceptable", NotAcceptable("only json"), 406, "NotAcceptable", "only json"},
        ErrorCase{"UnsupportedMediaType", UnsupportedMediaType("text/plain"), 415,
                  "UnsupportedMediaType",
                  "the body of the request was in an unknown format - accepted media types "
                  "include: application/json, application/merge-patch+json, "
                  "application/json-patch+json (text/plain given)"},
        ErrorCase{"InternalError", InternalError("disk full"), 500, "InternalError",
                  "Internal error occurred: disk full"}),
    [](const auto& tc) { return tc.param.name; });

TEST(EncodeStatusTest, InvalidHasTheMetaV1StatusShapeWithCauses) {
  const json status =
      json::parse(EncodeStatus(Invalid("TFJob", "kubeflow.org", "x", {kImage, kPolicy})));
  EXPECT_EQ(status, json::parse(R"({
    "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
    "message": "TFJob.kubeflow.org \"x\" is invalid: [spec.tfReplicaSpecs[Worker].template.spec.containers[0].image: Required value, spec.tfReplicaSpecs[Worker].restartPolicy: Unsupported value: \"Sometimes\": supported values: \"Always\", \"ExitCode\", \"Never\", \"OnFailure\"]",
    "reason": "Invalid",
    "details": {"name": "x", "group": "kubeflow.org", "kind": "TFJob", "causes": [
      {"reason": "FieldValueRequired", "message": "Required value",
       "field": "spec.tfReplicaSpecs[Worker].template.spec.containers[0].image"},
      {"reason": "FieldValueNotSupported", "message": "Unsupported value: \"Sometimes\": supported values: \"Always\", \"ExitCode\", \"Never\", \"OnFailure\"",
       "field": "spec.tfReplicaSpecs[Worker].restartPolicy"}]},
    "code": 422})"));
}

TEST(EncodeStatusTest, KeysAreInTheApiServersOrder) {
  const std::string text = EncodeStatus(NotFound("kubeflow.org", "tfjobs", "x"));
  EXPECT_EQ(text, R"({"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure",)"
                  R"("message":"tfjobs.kubeflow.org \"x\" not found","reason":"NotFound",)"
                  R"("details":{"name":"x","group":"kubeflow.org","kind":"tfjobs"},"code":404})");
}

TEST(EncodeStatusTest, NoDetailsWithoutThem) {
  const json status = json::parse(EncodeStatus(BadRequest("bad")));
  EXPECT_FALSE(status.contains("details"));
  EXPECT_EQ(status["code"], 400);
}

TEST(EncodeStatusTest, SuccessForDelete) {
  EXPECT_EQ(json::parse(EncodeSuccessStatus("x", "kubeflow.org", "tfjobs", "u-1")),
            json::parse(R"({"kind": "Status", "apiVersion": "v1", "metadata": {},
                            "status": "Success", "details": {"name": "x",
                            "group": "kubeflow.org", "kind": "tfjobs", "uid": "u-1"}})"));
}

struct CauseCase {
  std::string name;
  StatusCause cause;
  std::string reason;
  std::string text;  // CauseText
};

class CauseTest : public ::testing::TestWithParam<CauseCase> {};

TEST_P(CauseTest, WordedAsFieldErrors) {
  EXPECT_EQ(GetParam().cause.reason, GetParam().reason);
  EXPECT_EQ(CauseText(GetParam().cause), GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(
    Builders, CauseTest,
    ::testing::Values(
        CauseCase{"Required", RequiredCause("a.b"), "FieldValueRequired", "a.b: Required value"},
        CauseCase{"RequiredDetail", RequiredCause("a", "must be specified"), "FieldValueRequired",
                  "a: Required value: must be specified"},
        CauseCase{"Invalid", InvalidCause("a", "x\"y", "bad"), "FieldValueInvalid",
                  "a: Invalid value: \"x\\\"y\": bad"},
        CauseCase{"InvalidNumber",
                  InvalidNumberCause("a", -1,
                                     "must be greater than or equal "
                                     "to 0"),
                  "FieldValueInvalid", "a: Invalid value: -1: must be greater than or equal to 0"},
        CauseCase{"NotSupported", NotSupportedCause("a", "z", {"x", "y"}), "FieldValueNotSupported",
                  "a: Unsupported value: \"z\": supported values: \"x\", \"y\""},
        CauseCase{"Forbidden", ForbiddenCause("a", "no"), "FieldValueForbidden",
                  "a: Forbidden: no"},
        CauseCase{"Duplicate", DuplicateCause("a", "PS"), "FieldValueDuplicate",
                  "a: Duplicate value: \"PS\""},
        CauseCase{"TooLong", TooLongCause("a", 63), "FieldValueTooLong",
                  "a: Too long: may not be longer than 63"},
        CauseCase{"NoField", StatusCause{.message = "m"}, "", "m"}),
    [](const auto& tc) { return tc.param.name; });

TEST(KubeResultTest, HoldsAValueOrAnError) {
  KubeResult<int> value = 3;
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, 3);
  KubeResult<int> error = BadRequest("no");
  ASSERT_FALSE(error.ok());
  EXPECT_EQ(error.error().code, 400);
}

}  // namespace
}  // namespace trainyard::kube
