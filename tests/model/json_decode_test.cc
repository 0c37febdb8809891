#include <cstdint>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "model/json_codec.h"
#include "model/violation_matchers.h"

namespace trainyard::model {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// Decodes `{"trainingInput": {<member>}}`.
Result<Job> DecodeInput(const std::string& member) {
  return DecodeJob(R"({"trainingInput":{)" + member + "}}");
}

struct Int64Case {
  const char* name;
  const char* value;  // JSON text of `workerCount`
  std::int64_t expected;
  bool valid;
};

class Int64Test : public ::testing::TestWithParam<Int64Case> {};

TEST_P(Int64Test, DecodesWorkerCount) {
  const Int64Case& tc = GetParam();
  const Result<Job> job = DecodeInput(std::string(R"("workerCount":)") + tc.value);
  ASSERT_EQ(job.ok(), tc.valid) << DescriptionsOf(job.status());
  if (tc.valid) {
    EXPECT_EQ(job->training_input->worker_count, tc.expected);
  } else {
    EXPECT_THAT(FieldsOf(job.status()), ElementsAre("trainingInput.workerCount"));
    EXPECT_THAT(DescriptionsOf(job.status()), HasSubstr("(TYPE_INT64)"));
  }
}

INSTANTIATE_TEST_SUITE_P(
    ProtoJson, Int64Test,
    ::testing::Values(
        Int64Case{"String", R"("9")", 9, true}, Int64Case{"Number", "9", 9, true},
        Int64Case{"NegativeString", R"("-3")", -3, true},
        Int64Case{"IntegralFloat", "4.0", 4, true}, Int64Case{"Exponent", "1e3", 1000, true},
        Int64Case{"MaxString", R"("9223372036854775807")", INT64_MAX, true},
        Int64Case{"MinString", R"("-9223372036854775808")", INT64_MIN, true},
        Int64Case{"MaxNumber", "9223372036854775807", INT64_MAX, true},
        Int64Case{"MinNumber", "-9223372036854775808", INT64_MIN, true},
        Int64Case{"BadString", R"("abc")", 0, false}, Int64Case{"EmptyString", R"("")", 0, false},
        Int64Case{"PlusSign", R"("+4")", 0, false}, Int64Case{"Spaces", R"(" 4")", 0, false},
        Int64Case{"TrailingGarbage", R"("4x")", 0, false},
        Int64Case{"FloatString", R"("4.0")", 0, false}, Int64Case{"Fraction", "4.5", 0, false},
        Int64Case{"StringOverflow", R"("9223372036854775808")", 0, false},
        Int64Case{"HugeString", R"("99999999999999999999")", 0, false},
        Int64Case{"HugeNumber", "99999999999999999999", 0, false},
        Int64Case{"Uint64Max", "18446744073709551615", 0, false},
        Int64Case{"TwoToThe63AsFloat", "9.223372036854775808e18", 0, false},
        Int64Case{"Bool", "true", 0, false}, Int64Case{"Array", "[1]", 0, false},
        Int64Case{"Object", "{}", 0, false}),
    [](const auto& tc) { return std::string(tc.param.name); });

struct Int32Case {
  const char* name;
  const char* value;  // JSON text of `scheduling.priority`
  std::int32_t expected;
  bool valid;
};

class Int32Test : public ::testing::TestWithParam<Int32Case> {};

TEST_P(Int32Test, DecodesPriority) {
  const Int32Case& tc = GetParam();
  const Result<Job> job = DecodeInput(std::string(R"("scheduling":{"priority":)") + tc.value + "}");
  ASSERT_EQ(job.ok(), tc.valid) << DescriptionsOf(job.status());
  if (tc.valid) {
    EXPECT_EQ(job->training_input->scheduling->priority, tc.expected);
  } else {
    EXPECT_THAT(FieldsOf(job.status()), ElementsAre("trainingInput.scheduling.priority"));
    EXPECT_THAT(DescriptionsOf(job.status()), HasSubstr("(TYPE_INT32)"));
  }
}

INSTANTIATE_TEST_SUITE_P(ProtoJson, Int32Test,
                         ::testing::Values(Int32Case{"Number", "10", 10, true},
                                           Int32Case{"NumericString", R"("10")", 10, true},
                                           Int32Case{"Max", "2147483647", INT32_MAX, true},
                                           Int32Case{"Min", "-2147483648", INT32_MIN, true},
                                           Int32Case{"AboveMax", "2147483648", 0, false},
                                           Int32Case{"BelowMin", R"("-2147483649")", 0, false},
                                           Int32Case{"Fraction", "0.5", 0, false},
                                           Int32Case{"Null", "null", 0, true}),
                         [](const auto& tc) { return std::string(tc.param.name); });

struct ScalarCase {
  const char* name;
  const char* body;   // a whole Job document
  const char* field;  // the one violation's field; "" when the body is valid
  const char* words;  // a phrase the description must contain
};

class ScalarTest : public ::testing::TestWithParam<ScalarCase> {};

TEST_P(ScalarTest, AcceptsOrNamesTheField) {
  const ScalarCase& tc = GetParam();
  const Result<Job> job = DecodeJob(tc.body);
  if (std::string(tc.field).empty()) {
    EXPECT_TRUE(job.ok()) << DescriptionsOf(job.status());
    return;
  }
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(FieldsOf(job.status()), ElementsAre(tc.field));
  EXPECT_THAT(DescriptionsOf(job.status()), HasSubstr(tc.words));
}

INSTANTIATE_TEST_SUITE_P(
    Types, ScalarTest,
    ::testing::Values(
        ScalarCase{"StringGivenNumber", R"({"jobId":5})", "jobId", "(TYPE_STRING), 5"},
        ScalarCase{"StringGivenObject", R"({"jobId":{"a":1}})", "jobId", "{...}"},
        ScalarCase{"BoolTrue", R"({"trainingInput":{"useChiefInTfConfig":true}})", "", ""},
        ScalarCase{"BoolGivenString", R"({"trainingInput":{"useChiefInTfConfig":"true"}})",
                   "trainingInput.useChiefInTfConfig", "(TYPE_BOOL)"},
        ScalarCase{"BoolGivenNumber", R"({"trainingInput":{"enableWebAccess":1}})",
                   "trainingInput.enableWebAccess", "expected true or false"},
        ScalarCase{"DoubleGivenString", R"({"trainingOutput":{"consumedMLUnits":"1.5"}})",
                   "trainingOutput.consumedMLUnits", "(TYPE_DOUBLE)"},
        ScalarCase{"DoubleInteger", R"({"trainingOutput":{"consumedMLUnits":2}})", "", ""},
        ScalarCase{"ListGivenString", R"({"trainingInput":{"args":"--foo"}})", "trainingInput.args",
                   "expected a JSON array"},
        ScalarCase{"ListElementWrong", R"({"trainingInput":{"args":["a",1]}})",
                   "trainingInput.args[1]", "(TYPE_STRING), 1"},
        ScalarCase{"ListElementNull", R"({"trainingInput":{"packageUris":[null]}})",
                   "trainingInput.packageUris[0]", "null is not allowed"},
        ScalarCase{"MapGivenList", R"({"labels":["a"]})", "labels", "expected a JSON object"},
        ScalarCase{"MapValueNumber", R"({"labels":{"team":7}})", "labels.team", "(TYPE_STRING), 7"},
        ScalarCase{"MessageGivenString", R"({"trainingInput":"CUSTOM"})", "trainingInput",
                   "google.cloud.ml.v1.TrainingInput"},
        ScalarCase{"NestedMessageGivenList", R"({"trainingInput":{"masterConfig":[]}})",
                   "trainingInput.masterConfig", "expected a JSON object"},
        ScalarCase{"NullIsUnset", R"({"jobId":null,"trainingInput":{"masterConfig":null}})", "",
                   ""},
        ScalarCase{"EnumByName", R"({"state":"QUEUED","trainingInput":{"scaleTier":"CUSTOM"}})", "",
                   ""},
        ScalarCase{"EnumByNumber", R"({"state":4})", "", ""},
        ScalarCase{"EnumUnknownName", R"({"trainingInput":{"scaleTier":"custom"}})",
                   "trainingInput.scaleTier",
                   "accepted names are BASIC, STANDARD_1, PREMIUM_1, BASIC_GPU, BASIC_TPU, CUSTOM"},
        ScalarCase{"EnumUnknownNumber", R"({"state":99})", "state", "Job.State"},
        ScalarCase{"GoalEnum", R"({"trainingInput":{"hyperparameters":{"goal":"BEST"}}})",
                   "trainingInput.hyperparameters.goal", "MAXIMIZE, MINIMIZE"},
        ScalarCase{"AcceleratorTypeIsPlainString",
                   R"({"trainingInput":{"masterConfig":{"acceleratorConfig":{"type":"NEW_GPU"}}}})",
                   "", ""},
        ScalarCase{"Timestamp", R"({"createTime":"2018-02-27T22:09:40.5+01:00"})", "", ""},
        ScalarCase{"TimestampMalformed", R"({"createTime":"2018-02-27 22:09:40"})", "createTime",
                   "google.protobuf.Timestamp"},
        ScalarCase{"TimestampYearOne", R"({"endTime":"0001-01-01T00:00:00Z"})", "endTime",
                   "between the years 1678 and 2261"},
        ScalarCase{"TimestampNumber", R"({"startTime":1519769380})", "startTime", "RFC 3339"},
        ScalarCase{"Duration", R"({"trainingInput":{"scheduling":{"maxWaitTime":"1800.5s"}}})", "",
                   ""},
        ScalarCase{"DurationNoUnit", R"({"trainingInput":{"scheduling":{"maxWaitTime":"1800"}}})",
                   "trainingInput.scheduling.maxWaitTime", "google.protobuf.Duration"},
        ScalarCase{"DurationDoubleSign",
                   R"({"trainingInput":{"scheduling":{"maxRunningTime":"--5s"}}})",
                   "trainingInput.scheduling.maxRunningTime", "\"s\" suffix"},
        ScalarCase{"DurationTooLong",
                   R"({"trainingInput":{"scheduling":{"maxRunningTime":"315576000000s"}}})",
                   "trainingInput.scheduling.maxRunningTime", "9223372035s"},
        ScalarCase{"EtagPadded", R"({"etag":"w6rbTnTz3wQ="})", "", ""},
        ScalarCase{"EtagUnpadded", R"({"etag":"w6rbTnTz3wQ"})", "etag", "padded base64"},
        ScalarCase{"EtagNotBase64", R"({"etag":"abc"})", "etag", "(TYPE_BYTES)"},
        ScalarCase{"EtagBadChars", R"({"etag":"ab*d"})", "etag", "padded base64"},
        ScalarCase{"HugeDouble", R"({"trainingOutput":{"consumedMLUnits":1e308}})", "", ""}),
    [](const auto& tc) { return std::string(tc.param.name); });

struct UnknownCase {
  const char* name;
  const char* body;
  const char* field;  // the parent of the unknown name
  const char* words;
};

class UnknownFieldTest : public ::testing::TestWithParam<UnknownCase> {};

TEST_P(UnknownFieldTest, NamesTheParent) {
  const UnknownCase& tc = GetParam();
  const Result<Job> job = DecodeJob(tc.body);
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(FieldsOf(job.status()), ElementsAre(tc.field));
  EXPECT_EQ(job.status().violations()[0].description, tc.words);
}

INSTANTIATE_TEST_SUITE_P(
    Strict, UnknownFieldTest,
    ::testing::Values(
        UnknownCase{"TopLevel", R"({"jobId":"j","parameter_server_type":"x"})", "job",
                    R"(Invalid JSON payload received. Unknown name "parameter_server_type" at )"
                    R"('job': Cannot find field.)"},
        UnknownCase{"InTrainingInput", R"({"trainingInput":{"parameter_server_type":"x"}})",
                    "trainingInput",
                    R"(Invalid JSON payload received. Unknown name "parameter_server_type" at )"
                    R"('trainingInput': Cannot find field.)"},
        UnknownCase{"SnakeCaseIsUnknown", R"({"trainingInput":{"worker_count":"2"}})",
                    "trainingInput",
                    R"(Invalid JSON payload received. Unknown name "worker_count" at )"
                    R"('trainingInput': Cannot find field.)"},
        UnknownCase{"InAccelerator",
                    R"({"trainingInput":{"workerConfig":{"acceleratorConfig":{"gpus":1}}}})",
                    "trainingInput.workerConfig.acceleratorConfig",
                    R"(Invalid JSON payload received. Unknown name "gpus" at )"
                    R"('trainingInput.workerConfig.acceleratorConfig': Cannot find field.)"},
        UnknownCase{"InListElement",
                    R"({"trainingInput":{"hyperparameters":{"params":[{},{},{"min":0}]}}})",
                    "trainingInput.hyperparameters.params[2]",
                    R"(Invalid JSON payload received. Unknown name "min" at )"
                    R"('trainingInput.hyperparameters.params[2]': Cannot find field.)"},
        UnknownCase{"NullValueStillUnknown", R"({"bogus":null})", "job",
                    R"(Invalid JSON payload received. Unknown name "bogus" at 'job': )"
                    R"(Cannot find field.)"},
        UnknownCase{"PredictionInput", R"({"predictionInput":{"dataFormat":"JSON"}})",
                    "predictionInput",
                    "Invalid JSON payload received. 'predictionInput' is not supported: batch "
                    "prediction is not supported by trainyard."},
        UnknownCase{"ExplanationInput", R"({"explanationInput":{}})", "explanationInput",
                    "Invalid JSON payload received. 'explanationInput' is not supported: batch "
                    "prediction is not supported by trainyard."},
        UnknownCase{"NasJobSpec", R"({"trainingInput":{"nasJobSpec":{}}})",
                    "trainingInput.nasJobSpec",
                    "Invalid JSON payload received. 'trainingInput.nasJobSpec' is not supported: "
                    "Neural Architecture Search is not supported by trainyard."}),
    [](const auto& tc) { return std::string(tc.param.name); });

TEST(DecodeJob, CollectsEveryViolationInSchemaOrder) {
  const Result<Job> job = DecodeJob(R"({
    "zzz": 1,
    "jobId": 5,
    "etag": "abc",
    "trainingInput": {
      "workerCount": "many",
      "scaleTier": "HUGE",
      "masterConfig": {"acceleratorConfig": {"count": 1.5, "kind": "T4"}},
      "hyperparameters": {"params": [{"minValue": "low"}, {"type": "REAL"}]}
    },
    "trainingOutput": {"completedTrialCount": 99999999999999999999}
  })");
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(
      FieldsOf(job.status()),
      ElementsAre("jobId", "etag", "trainingInput.scaleTier",
                  "trainingInput.masterConfig.acceleratorConfig.count",
                  "trainingInput.masterConfig.acceleratorConfig", "trainingInput.workerCount",
                  "trainingInput.hyperparameters.params[0].minValue",
                  "trainingInput.hyperparameters.params[1].type",
                  "trainingOutput.completedTrialCount", "job"));
  EXPECT_THAT(job.status().message(), HasSubstr("jobId"));
}

TEST(DecodeJob, CapsTheNumberOfViolations) {
  std::string args;
  for (int i = 0; i < 1000; ++i) {
    args += i == 0 ? "1" : ",1";
  }
  const Result<Job> job = DecodeInput(R"("args":[)" + args + "]");
  ASSERT_FALSE(job.ok());
  ASSERT_EQ(job.status().violations().size(), 51u);
  EXPECT_EQ(job.status().violations()[0].field, "trainingInput.args[0]");
  EXPECT_EQ(job.status().violations()[50].description, "950 more problems not shown");
}

struct DocumentCase {
  const char* name;
  std::string text;
  const char* words;
};

class MalformedDocumentTest : public ::testing::TestWithParam<DocumentCase> {};

TEST_P(MalformedDocumentTest, IsOneViolationAtTheRoot) {
  const DocumentCase& tc = GetParam();
  const Result<Job> job = DecodeJob(tc.text);
  ASSERT_FALSE(job.ok());
  EXPECT_EQ(job.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(FieldsOf(job.status()), ElementsAre("job"));
  EXPECT_THAT(DescriptionsOf(job.status()), HasSubstr(tc.words));
}

INSTANTIATE_TEST_SUITE_P(
    Documents, MalformedDocumentTest,
    ::testing::Values(
        DocumentCase{"Empty", "", "empty"}, DocumentCase{"Whitespace", " \n\t ", "empty"},
        DocumentCase{"Truncated", R"({"jobId":)", "line 1, column 10"},
        DocumentCase{"TrailingComma", R"({"jobId":"a",})", "parse error"},
        DocumentCase{"TrailingGarbage", R"({} x)", "parse error"},
        DocumentCase{"NumberOverflow", R"({"trainingOutput":{"consumedMLUnits":1e400}})",
                     "number overflow"},
        DocumentCase{"InvalidUtf8", "{\"jobId\":\"\xff\"}", "parse error"},
        DocumentCase{"Array", "[]", "expected a JSON object"},
        DocumentCase{"String", R"("job")", "expected a JSON object"},
        DocumentCase{"Null", "null", "expected a JSON object"},
        DocumentCase{"DeepNesting", std::string(100000, '[') + std::string(100000, ']'),
                     "expected a JSON object"}),
    [](const auto& tc) { return std::string(tc.param.name); });

TEST(DecodeJob, DeepNestingInsideAFieldIsAnError) {
  const std::string deep = std::string(50000, '[') + std::string(50000, ']');
  const Result<Job> job = DecodeJob(R"({"jobId":)" + deep + R"(,"extra":)" + deep + "}");
  ASSERT_FALSE(job.ok());
  EXPECT_THAT(FieldsOf(job.status()), ElementsAre("jobId", "job"));
}

TEST(DecodeJob, ParseErrorsAreValidUtf8) {
  const Result<Job> job = DecodeJob("{\"a\": \xff\xfe}");
  ASSERT_FALSE(job.ok());
  const std::string& description = job.status().violations()[0].description;
  EXPECT_EQ(description.find('\xff'), std::string::npos) << description;
}

TEST(DecodeTrainingInput, PathsAreRelativeToItsRoot) {
  const Result<TrainingInput> input =
      DecodeTrainingInput(R"({"workerCount":"x","masterConfig":{"bogus":1},"other":2})");
  ASSERT_FALSE(input.ok());
  EXPECT_THAT(FieldsOf(input.status()),
              ElementsAre("masterConfig", "workerCount", "trainingInput"));
  EXPECT_THAT(DescriptionsOf(input.status()), HasSubstr("at 'trainingInput': Cannot find field"));
}

TEST(DecodeTrainingInput, DecodesAValidInput) {
  const Result<TrainingInput> input =
      DecodeTrainingInput(R"({"scaleTier":"BASIC_TPU","region":"us-central1","workerCount":3})");
  ASSERT_TRUE(input.ok()) << DescriptionsOf(input.status());
  EXPECT_EQ(input->scale_tier, ScaleTier::kBasicTpu);
  EXPECT_EQ(input->region, "us-central1");
  EXPECT_EQ(input->worker_count, 3);
}

}  // namespace
}  // namespace trainyard::model
