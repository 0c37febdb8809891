#include "kube/query.h"

#include <optional>
#include <string>

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
