#include "tuning/search_space.h"

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tuning/spaces.h"

namespace trainyard::tuning {
namespace {

using namespace test_spaces;  // NOLINT(google-build-using-namespace): the test builders
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// ---- FromSpec refuses what validation refuses ----
// The rules themselves (tuning/param_rules.h) are tested through Validate, in
// tests/validate/hyperparameters_test.cc; here only that FromSpec reports them all.

TEST(FromSpec, RefusesWithEveryParameterViolation) {
  const Result<SearchSpace> space =
      SearchSpace::FromSpec(Spec({Double("x", 2, 1), Categorical("x", {})}));
  ASSERT_FALSE(space.ok());
  EXPECT_EQ(space.status().code(), Code::kInvalidArgument);
  std::vector<std::string> lines;
  for (const FieldViolation& v : space.status().violations()) {
    lines.push_back(v.field + ": " + v.description);
  }
  EXPECT_THAT(lines, ElementsAre("trainingInput.hyperparameters.params[0].maxValue: must be "
                                 "greater than minValue 2; got 1",
                                 "trainingInput.hyperparameters.params[1].parameterName: 'x' names "
                                 "an earlier parameter too; names must be unique",
                                 "trainingInput.hyperparameters.params[1].categoricalValues: is "
                                 "required for a CATEGORICAL parameter"));
}

TEST(FromSpec, CountsOneCoordinatePerCategory) {
  const SearchSpace space = Space({Double("lr", 1e-4, 1, ScaleType::kUnitLogScale),
                                   Categorical("act", {"relu", "tanh", "gelu"}),
                                   Integer("layers", 1, 8), Discrete("batch", {16, 32, 64})});
  EXPECT_EQ(space.params().size(), 4u);
  EXPECT_EQ(space.unit_dimensions(), 6u);
}

// ---- FromUnit: scalings at the ends and the middle, snapping ----

struct ScalingCase {
  std::string name;
  ParameterSpec param;
  double unit;
  double value;
};

class ScalingTest : public ::testing::TestWithParam<ScalingCase> {};

TEST_P(ScalingTest, MapsUnitToValueAndBack) {
  const SearchSpace space = Space({GetParam().param});
  const Assignment point = space.FromUnit(std::vector<double>{GetParam().unit});
  ASSERT_EQ(point.size(), 1u);
  EXPECT_NEAR(point[0].number, GetParam().value, 1e-9 * (1 + std::abs(GetParam().value)));
  // Snapping is idempotent: the value's own unit point gives it back.
  EXPECT_EQ(space.FromUnit(*space.ToUnit(point)), point);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ScalingTest,
    ::testing::Values(
        ScalingCase{"LinearLow", Double("x", 1, 10), 0, 1},
        ScalingCase{"LinearMiddle", Double("x", 1, 10), 0.5, 5.5},
        ScalingCase{"LinearHigh", Double("x", 1, 10), 1, 10},
        ScalingCase{"NoneIsLinear", Double("x", -2, 2, ScaleType::kNone), 0.25, -1},
        ScalingCase{"ClampedBelow", Double("x", 1, 10), -0.5, 1},
        ScalingCase{"ClampedAbove", Double("x", 1, 10), 7, 10},
        ScalingCase{"LogLow", Double("x", 1e-4, 1, ScaleType::kUnitLogScale), 0, 1e-4},
        ScalingCase{"LogMiddle", Double("x", 1e-4, 1, ScaleType::kUnitLogScale), 0.5, 1e-2},
        ScalingCase{"LogQuarter", Double("x", 1e-4, 1, ScaleType::kUnitLogScale), 0.25, 1e-3},
        ScalingCase{"LogHigh", Double("x", 1e-4, 1, ScaleType::kUnitLogScale), 1, 1},
        // x = max + min - min (max/min)^(1-u): packs points near the top.
        ScalingCase{"ReverseLogLow", Double("x", 1, 100, ScaleType::kUnitReverseLogScale), 0, 1},
        ScalingCase{"ReverseLogMiddle", Double("x", 1, 100, ScaleType::kUnitReverseLogScale), 0.5,
                    91},
        ScalingCase{"ReverseLogHigh", Double("x", 1, 100, ScaleType::kUnitReverseLogScale), 1, 100},
        ScalingCase{"IntegerLowEnd", Integer("n", 1, 4), 0, 1},
        ScalingCase{"IntegerFirstShare", Integer("n", 1, 4), 0.249, 1},
        ScalingCase{"IntegerSecondShare", Integer("n", 1, 4), 0.251, 2},
        ScalingCase{"IntegerHighEnd", Integer("n", 1, 4), 1, 4},
        // Log over [0.5, 100.5]: u = 0.5 is sqrt(0.5 * 100.5) = 7.09, so 7.
        ScalingCase{"IntegerLogMiddle", Integer("n", 1, 100, ScaleType::kUnitLogScale), 0.5, 7},
        ScalingCase{"IntegerLogHigh", Integer("n", 1, 100, ScaleType::kUnitLogScale), 1, 100},
        ScalingCase{"DiscreteIndexShares", Discrete("b", {1, 2, 10}), 0.5, 2},
        ScalingCase{"DiscreteIndexLast", Discrete("b", {1, 2, 10}), 0.7, 10},
        // Linear positions 0, 1/9, 1: the nearest to 0.5 is 2, to 0.6 is 10.
        ScalingCase{"DiscreteScaledNearest", Discrete("b", {1, 2, 10}, ScaleType::kUnitLinearScale),
                    0.5, 2},
        ScalingCase{"DiscreteScaledFar", Discrete("b", {1, 2, 10}, ScaleType::kUnitLinearScale),
                    0.6, 10},
        // Log positions 0, 1/2, 1 for 1, 10, 100.
        ScalingCase{"DiscreteLog", Discrete("b", {1, 10, 100}, ScaleType::kUnitLogScale), 0.74, 10},
        ScalingCase{"DiscreteSingle", Discrete("b", {5}), 0.9, 5}),
    [](const auto& tc) { return tc.param.name; });

TEST(FromUnit, GivesEveryIntegerAnEqualShare) {
  const SearchSpace space = Space({Integer("n", 0, 9)});
  std::map<double, int> hits;
  constexpr int kSamples = 10000;
  for (int i = 0; i < kSamples; ++i) {
    const double u = (i + 0.5) / kSamples;
    ++hits[space.FromUnit(std::vector<double>{u})[0].number];
  }
  ASSERT_EQ(hits.size(), 10u);
  for (const auto& [value, count] : hits) {
    EXPECT_EQ(count, kSamples / 10) << value;
  }
}

TEST(FromUnit, PicksTheLargestCategoryCoordinate) {
  const SearchSpace space = Space({Categorical("act", {"relu", "tanh", "gelu"})});
  EXPECT_EQ(space.FromUnit(std::vector<double>{0.2, 0.1, 0.7})[0].category, "gelu");
  EXPECT_EQ(space.FromUnit(std::vector<double>{0.2, 0.9, 0.7})[0].category, "tanh");
  EXPECT_EQ(space.FromUnit(std::vector<double>{0.5, 0.5, 0.5})[0].category, "relu");  // ties
}

TEST(ToUnit, PutsValuesAtTheCentreOfTheirShareAndCategoriesOneHot) {
  const SearchSpace space =
      Space({Integer("n", 1, 4), Categorical("act", {"relu", "tanh", "gelu"}),
             Discrete("b", {1, 2, 10}), Double("lr", 1e-4, 1, ScaleType::kUnitLogScale)});
  const Result<std::vector<double>> unit =
      space.ToUnit({Number("n", 2), Category("act", "tanh"), Number("b", 10), Number("lr", 1e-2)});
  ASSERT_TRUE(unit.ok()) << unit.status().ToString();
  ASSERT_EQ(unit->size(), 6u);
  EXPECT_DOUBLE_EQ((*unit)[0], 0.375);
  EXPECT_THAT(std::vector<double>(unit->begin() + 1, unit->begin() + 4), ElementsAre(0, 1, 0));
  EXPECT_DOUBLE_EQ((*unit)[4], 5.0 / 6);
  EXPECT_NEAR((*unit)[5], 0.5, 1e-12);
}

TEST(ToUnit, FindsValuesByNameInAnyOrder) {
  const SearchSpace space = Space({Integer("a", 0, 3), Integer("b", 0, 3)});
  EXPECT_EQ(*space.ToUnit({Number("b", 0), Number("a", 3)}), (std::vector<double>{0.875, 0.125}));
}

struct NotInSpaceCase {
  std::string name;
  ParameterValue value;
  std::string message;
};

class ToUnitErrorTest : public ::testing::TestWithParam<NotInSpaceCase> {};

TEST_P(ToUnitErrorTest, NamesTheParameter) {
  const SearchSpace space = Space({Double("lr", 0.1, 1), Integer("n", 1, 4),
                                   Discrete("b", {16, 32}), Categorical("act", {"relu"})});
  Assignment point = {Number("lr", 0.5), Number("n", 2), Number("b", 16), Category("act", "relu")};
  for (ParameterValue& value : point) {
    if (value.name == GetParam().value.name) {
      value = GetParam().value;
    }
  }
  if (GetParam().value.name.empty()) {
    point.pop_back();
  }
  const Result<std::vector<double>> unit = space.ToUnit(point);
  ASSERT_FALSE(unit.ok());
  EXPECT_EQ(unit.status().code(), Code::kInvalidArgument);
  EXPECT_THAT(unit.status().message(), HasSubstr(GetParam().message));
}

INSTANTIATE_TEST_SUITE_P(
    Table, ToUnitErrorTest,
    ::testing::Values(
        NotInSpaceCase{"DoubleOutOfRange", Number("lr", 2), "parameter lr: 2 is not in"},
        NotInSpaceCase{"IntegerNotWhole", Number("n", 2.5), "parameter n: 2.5 is not in"},
        NotInSpaceCase{"IntegerOutOfRange", Number("n", 5), "parameter n: 5 is not in"},
        NotInSpaceCase{"DiscreteNotListed", Number("b", 24), "parameter b: 24 is not in"},
        NotInSpaceCase{"UnknownCategory", Category("act", "tanh"), "parameter act: 'tanh'"},
        NotInSpaceCase{"Missing", {}, "parameter act has no value"}),
    [](const auto& tc) { return tc.param.name; });

// ---- Parse and Text ----

TEST(Parse, ReadsATrialsHyperparameters) {
  const SearchSpace space = Space({Double("lr", 1e-5, 1), Integer("n", 1, 4),
                                   Discrete("b", {16, 32}), Categorical("act", {"relu", "tanh"})});
  const Result<Assignment> point =
      space.Parse({{"act", "tanh"}, {"b", "32"}, {"lr", "1e-05"}, {"n", "3"}, {"extra", "x"}});
  ASSERT_TRUE(point.ok()) << point.status().ToString();
  EXPECT_EQ(*point, (Assignment{Number("lr", 1e-5), Number("n", 3), Number("b", 32),
                                Category("act", "tanh")}));
}

struct ParseErrorCase {
  std::string name;
  std::vector<std::pair<std::string, std::string>> values;
  std::string message;
};

class ParseErrorTest : public ::testing::TestWithParam<ParseErrorCase> {};

TEST_P(ParseErrorTest, NamesTheParameter) {
  const SearchSpace space = Space({Double("lr", 1e-5, 1), Integer("n", 1, 4)});
  const Result<Assignment> point = space.Parse(GetParam().values);
  ASSERT_FALSE(point.ok());
  EXPECT_EQ(point.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(point.status().message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Table, ParseErrorTest,
    ::testing::Values(
        ParseErrorCase{"Missing", {{"lr", "0.1"}}, "parameter n has no value in the trial"},
        ParseErrorCase{
            "NotANumber", {{"lr", "fast"}, {"n", "2"}}, "parameter lr: 'fast' is not a number"},
        ParseErrorCase{
            "TrailingText", {{"lr", "0.1x"}, {"n", "2"}}, "parameter lr: '0.1x' is not a number"},
        ParseErrorCase{
            "Infinite", {{"lr", "inf"}, {"n", "2"}}, "parameter lr: 'inf' is not a number"},
        ParseErrorCase{"FractionalInteger",
                       {{"lr", "0.1"}, {"n", "2.5"}},
                       "parameter n: '2.5' is not an integer"}),
    [](const auto& tc) { return tc.param.name; });

struct TextCase {
  std::string name;
  ParameterValue value;
  std::string text;
};

class TextTest : public ::testing::TestWithParam<TextCase> {};

TEST_P(TextTest, IsShortestRoundTrip) {
  EXPECT_EQ(GetParam().value.Text(), GetParam().text);
}

INSTANTIATE_TEST_SUITE_P(Table, TextTest,
                         ::testing::Values(TextCase{"Integer", Number("n", 3), "3"},
                                           TextCase{"NegativeInteger", Number("n", -4), "-4"},
                                           TextCase{"LargeInteger", Number("n", 100000), "100000"},
                                           TextCase{"NegativeZero", Number("n", -0.0), "0"},
                                           TextCase{"Hundredth", Number("x", 0.01), "0.01"},
                                           TextCase{"TenMicro", Number("x", 1e-05), "1e-05"},
                                           TextCase{"Half", Number("x", 2.5), "2.5"},
                                           TextCase{"Huge", Number("x", 1e20), "1e+20"},
                                           TextCase{"Inexact", Number("x", 0.1 + 0.2),
                                                    "0.30000000000000004"},
                                           TextCase{"Category", Category("act", "relu"), "relu"}),
                         [](const auto& tc) { return tc.param.name; });

TEST(Text, ReadsBackExactlyThroughParse) {
  const SearchSpace space = Space({Double("x", 1e-6, 10, ScaleType::kUnitLogScale)});
  for (int i = 0; i <= 100; ++i) {
    const Assignment point = space.FromUnit(std::vector<double>{i / 100.0 * 0.987654321});
    const Result<Assignment> back = space.Parse({{"x", point[0].Text()}});
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, point) << point[0].Text();
  }
}

// ---- Grid ----

std::vector<std::string> Texts(const std::vector<Assignment>& points) {
  std::vector<std::string> out;
  for (const Assignment& point : points) {
    std::string line;
    for (const ParameterValue& value : point) {
      if (!line.empty()) {
        line += ' ';
      }
      line += value.Text();
    }
    out.push_back(line);
  }
  return out;
}

TEST(Grid, EnumeratesWithTheLastParameterFastest) {
  const SearchSpace space = Space(
      {Integer("n", 1, 2), Categorical("act", {"relu", "tanh"}), Discrete("b", {16, 32, 64})});
  const Result<std::vector<Assignment>> grid = space.Grid(100);
  ASSERT_TRUE(grid.ok());
  EXPECT_THAT(Texts(*grid), ElementsAre("1 relu 16", "1 relu 32", "1 relu 64", "1 tanh 16",
                                        "1 tanh 32", "1 tanh 64", "2 relu 16", "2 relu 32",
                                        "2 relu 64", "2 tanh 16", "2 tanh 32", "2 tanh 64"));
  EXPECT_EQ((*grid)[0][1].name, "act");
}

TEST(Grid, StopsAtTheLimit) {
  const SearchSpace space = Space({Integer("a", 0, 1'000'000'000), Integer("b", 0, 9)});
  const Result<std::vector<Assignment>> grid = space.Grid(12);
  ASSERT_TRUE(grid.ok());
  EXPECT_THAT(Texts(*grid), ElementsAre("0 0", "0 1", "0 2", "0 3", "0 4", "0 5", "0 6", "0 7",
                                        "0 8", "0 9", "1 0", "1 1"));
}

TEST(Grid, RefusesDoubleParameters) {
  const SearchSpace space = Space({Integer("n", 1, 2), Double("lr", 0.1, 1), Double("m", 0, 1)});
  const Result<std::vector<Assignment>> grid = space.Grid(10);
  ASSERT_FALSE(grid.ok());
  EXPECT_EQ(grid.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(grid.status().message(),
            "GRID_SEARCH cannot enumerate DOUBLE parameter lr; give it discrete values (type "
            "DISCRETE) instead.");
}

}  // namespace
}  // namespace trainyard::tuning
