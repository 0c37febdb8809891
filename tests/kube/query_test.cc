#include "kube/query.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::kube {
namespace {

struct BoolCase {
  std::string name;
  std::optional<std::string> value;  // nullopt: the parameter is absent
  bool expected;
};

class QueryBoolTest : public ::testing::TestWithParam<BoolCase> {};

TEST_P(QueryBoolTest, ReadsAsTheApiServerDoes) {
  const BoolCase& c = GetParam();
  EXPECT_EQ(QueryBool(c.value ? std::optional<std::string_view>(*c.value) : std::nullopt),
            c.expected);
}

INSTANTIATE_TEST_SUITE_P(
    Values, QueryBoolTest,
    ::testing::Values(BoolCase{"Absent", std::nullopt, false}, BoolCase{"LowerTrue", "true", true},
                      BoolCase{"PythonTrue", "True", true}, BoolCase{"UpperTrue", "TRUE", true},
                      BoolCase{"One", "1", true}, BoolCase{"T", "t", true},
                      BoolCase{"AnyOtherWord", "yes", true}, BoolCase{"Empty", "", true},
                      BoolCase{"LowerFalse", "false", false},
                      BoolCase{"PythonFalse", "False", false},
                      BoolCase{"UpperFalse", "FALSE", false},
                      BoolCase{"MixedFalse", "fAlSe", false}, BoolCase{"Zero", "0", false},
                      BoolCase{"FalsePrefix", "fals", true}, BoolCase{"TwoZeros", "00", true}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::kube

namespace trainyard::kube {
namespace {

struct FieldValidationCase {
  std::string name;
  std::optional<std::string> directive;  // fieldValidation; nullopt: absent
  std::vector<std::string> unknown;      // the decoder's unknown fields
  int refused_code;                      // 0: accepted
  std::string message;                   // the refusal's message
  std::vector<std::string> warnings;     // when accepted
};

class FieldValidationTest : public ::testing::TestWithParam<FieldValidationCase> {};

TEST_P(FieldValidationTest, RefusesWarnsOrIgnoresUnknownFields) {
  const FieldValidationCase& tc = GetParam();
  const KubeResult<std::vector<std::string>> warnings = UnknownFieldWarnings(
      tc.directive ? std::optional<std::string_view>(*tc.directive) : std::nullopt, tc.unknown);
  if (tc.refused_code != 0) {
    ASSERT_FALSE(warnings.ok());
    EXPECT_EQ(warnings.error().code, tc.refused_code);
    EXPECT_EQ(warnings.error().reason, "BadRequest");
    EXPECT_EQ(warnings.error().message, tc.message);
    return;
  }
  ASSERT_TRUE(warnings.ok()) << warnings.error().message;
  EXPECT_EQ(*warnings, tc.warnings);
}

const std::vector<std::string> kTwoUnknown = {"spec.extra", "metadata.colour"};

INSTANTIATE_TEST_SUITE_P(
    Directives, FieldValidationTest,
    ::testing::Values(
        FieldValidationCase{"AbsentWarns",
                            std::nullopt,
                            kTwoUnknown,
                            0,
                            "",
                            {"unknown field \"spec.extra\"", "unknown field \"metadata.colour\""}},
        FieldValidationCase{"Warn",
                            "Warn",
                            kTwoUnknown,
                            0,
                            "",
                            {"unknown field \"spec.extra\"", "unknown field \"metadata.colour\""}},
        FieldValidationCase{"Ignore", "Ignore", kTwoUnknown, 0, "", {}},
        FieldValidationCase{"Strict",
                            "Strict",
                            kTwoUnknown,
                            400,
                            "strict decoding error: unknown field \"spec.extra\", unknown field "
                            "\"metadata.colour\"",
                            {}},
        FieldValidationCase{"StrictOne",
                            "Strict",
                            {"spec.x"},
                            400,
                            "strict decoding error: unknown field \"spec.x\"",
                            {}},
        FieldValidationCase{"StrictWithNoneUnknown", "Strict", {}, 0, "", {}},
        FieldValidationCase{"WarnWithNoneUnknown", "Warn", {}, 0, "", {}},
        // the directive is exact: anything else is refused, unknown fields or not
        FieldValidationCase{"LowerCase",
                            "strict",
                            {},
                            400,
                            "fieldValidation must be one of \"Ignore\", \"Warn\" or \"Strict\", "
                            "not \"strict\"",
                            {}},
        FieldValidationCase{"Empty",
                            "",
                            kTwoUnknown,
                            400,
                            "fieldValidation must be one of \"Ignore\", \"Warn\" or \"Strict\", "
                            "not \"\"",
                            {}}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::kube
