// The tuning benchmark's two-objective measurement (bench/tuning/hypervolume.h and the
// two-objective test functions): 2-D hypervolume of small fronts worked out by hand, the
// functions' values at known points, their stated largest hypervolumes against their fronts,
// the evaluation protocol's extra fields for the Optuna peer, and a study through the executor's
// multi-metric path.
#include <array>
#include <cmath>
#include <numbers>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bench/function_lookup.h"
#include "bench/tuning/hypervolume.h"
#include "bench/tuning/peer_io.h"
#include "bench/tuning/study_runner.h"
#include "bench/tuning/test_functions.h"

namespace trainyard::bench {
namespace {

using Point = std::array<double, 2>;

TEST(HypervolumeTest, SmallFrontsByHand) {
  struct Case {
    std::string what;
    std::vector<Point> points;
    Point reference;
    double volume;
  };
  const std::vector<Case> cases = {
      {"no points", {}, {4, 4}, 0},
      {"one point: its box", {{1, 1}}, {3, 2}, 2 * 1},
      // [1, 4] x [3, 4] and [2, 4] x [1, 4] overlap in [2, 4] x [3, 4]: 3 + 6 - 2.
      {"two points", {{1, 3}, {2, 1}}, {4, 4}, 7},
      {"the same in the other order", {{2, 1}, {1, 3}}, {4, 4}, 7},
      {"a dominated point adds nothing", {{1, 3}, {3, 3.5}, {2, 1}}, {4, 4}, 7},
      {"a point equal to another adds nothing", {{1, 1}, {1, 1}}, {2, 2}, 1},
      {"equal first values: the lower second counts", {{1, 2}, {1, 1}}, {2, 3}, 2},
      // Strips of 3 x 1, 2 x 1 and 1 x 1.
      {"a staircase", {{0, 2}, {1, 1}, {2, 0}}, {3, 3}, 6},
      {"beyond the reference in one objective", {{5, 0}, {0, 5}}, {4, 4}, 0},
      {"on the reference's edge", {{4, 1}, {1, 4}}, {4, 4}, 0},
      {"one inside, one outside", {{5, 0}, {3, 3}}, {4, 4}, 1},
      {"negative values", {{-1, -1}}, {1, 0}, 2},
  };
  for (const Case& c : cases) {
    EXPECT_DOUBLE_EQ(Hypervolume(c.points, c.reference), c.volume) << c.what;
  }
}

TEST(HypervolumeTest, RegretFallsAsTrialsComeIn) {
  HypervolumeRegret regret({4, 4}, 10);
  EXPECT_DOUBLE_EQ(regret.Add({5, 5}), 10);      // outside: nothing dominated yet
  EXPECT_DOUBLE_EQ(regret.Add({1, 3}), 10 - 3);  // its box
  EXPECT_DOUBLE_EQ(regret.Add({3, 3.5}), 10 - 3);
  EXPECT_DOUBLE_EQ(regret.Add({2, 1}), 10 - 7);
}

TEST(TwoObjectiveFunctionsTest, ValuesAtKnownPoints) {
  struct Case {
    std::string function;
    std::vector<double> x;
    Point values;
  };
  using std::numbers::pi;
  // Branin-Currin's by an independent numpy evaluation of BoTorch's formulas; at x2 = 0 Currin is
  // 60 / 20 at x1 = 0 and 6352 / 624 at x1 = 1; Branin's minimum 0.397887 at (pi, 2.275) mapped
  // into [0, 1]^2. ZDT1's by hand: g = 1 on the front, g = 1 + 3 * 3 = 10 at the last point.
  const std::vector<Case> cases = {
      {"branincurrin", {0.5, 0.5}, {24.129964413622268, 7.40512391329881}},
      {"branincurrin", {0, 0}, {308.12909601160663, 3}},
      {"branincurrin", {1, 0}, {10.960889035651505, 6352.0 / 624}},
      {"branincurrin", {0.1, 0.9}, {1.1284927362930244, 4.8558678931676775}},
      {"branincurrin", {(pi + 5) / 15, 2.275 / 15}, {0.397887357729738, 11.023462104796744}},
      {"zdt1", {0, 0, 0, 0}, {0, 1}},
      {"zdt1", {1, 0, 0, 0}, {1, 0}},
      {"zdt1", {0.25, 0, 0, 0}, {0.25, 0.5}},
      {"zdt1", {0.25, 1, 1, 1}, {0.25, 10 * (1 - std::sqrt(0.025))}},
  };
  for (const Case& c : cases) {
    const TestFunction& function = Function(c.function);
    ASSERT_TRUE(function.two_objectives.has_value()) << c.function;
    EXPECT_NEAR(function.evaluate(c.x), c.values[0], 1e-9 * (1 + std::abs(c.values[0])))
        << c.function << " " << c.x[0] << ", " << c.x[1];
    EXPECT_NEAR(function.two_objectives->second(c.x), c.values[1],
                1e-9 * (1 + std::abs(c.values[1])))
        << c.function << " " << c.x[0] << ", " << c.x[1];
  }
}

// The hypervolume of the function's values at `points`, against its reference point.
double HypervolumeAt(const TestFunction& function, const std::vector<std::vector<double>>& points) {
  std::vector<Point> values;
  values.reserve(points.size());
  for (const std::vector<double>& x : points) {
    values.push_back({function.evaluate(x), function.two_objectives->second(x)});
  }
  return Hypervolume(values, function.two_objectives->reference);
}

TEST(TwoObjectiveFunctionsTest, FrontsComeCloseToTheStatedMaximum) {
  // ZDT1's front, x2 = x3 = x4 = 0, at 1,001 points: its staircase misses about the area between
  // the curve and the steps, sum(df1 * df2) / 2, under 1e-3.
  const TestFunction& zdt1 = Function("zdt1");
  std::vector<std::vector<double>> front;
  for (int i = 0; i <= 1000; ++i) {
    front.push_back({i / 1000.0, 0, 0, 0});
  }
  const double zdt1_volume = HypervolumeAt(zdt1, front);
  EXPECT_LT(zdt1_volume, zdt1.two_objectives->max_hypervolume);
  EXPECT_GT(zdt1_volume, zdt1.two_objectives->max_hypervolume - 1e-3);
  EXPECT_NEAR(zdt1.two_objectives->max_hypervolume, 0.876666666666667, 1e-12);

  // Branin-Currin's Pareto set lies in x1 in [0, 0.13], x2 in [0.8, 1] (the dense evaluation
  // test_functions.cc describes): a 1,000 x 1,000 grid there (59.374) comes within 0.05 of the
  // stated value, below it, and above BoTorch's NSGA-II figure 59.3601, which is too low; a
  // 300 x 300 grid of the whole square stays below it too.
  const TestFunction& branin_currin = Function("branincurrin");
  const double max = branin_currin.two_objectives->max_hypervolume;
  struct Grid {
    double x1_high;
    double x2_low;
    int steps;
    double below;  // how far below the maximum it may stay
  };
  for (const Grid& box : {Grid{0.13, 0.8, 999, 0.05}, Grid{1, 0, 299, 1}}) {
    std::vector<std::vector<double>> grid;
    for (int i = 0; i <= box.steps; ++i) {
      for (int j = 0; j <= box.steps; ++j) {
        grid.push_back(
            {box.x1_high * i / box.steps, box.x2_low + (1 - box.x2_low) * j / box.steps});
      }
    }
    const double volume = HypervolumeAt(branin_currin, grid);
    EXPECT_LT(volume, max) << box.steps;
    EXPECT_GT(volume, max - box.below) << box.steps;
    if (box.x1_high < 1) {
      EXPECT_GT(volume, 59.36011874867746);
    }
  }
}

TEST(TwoObjectiveFunctionsTest, DescriptionCarriesObjectives) {
  const nlohmann::json described =
      nlohmann::json::parse(DescribeJson({&Function("branin"), &Function("branincurrin")}));
  ASSERT_EQ(described.size(), 2U);
  EXPECT_FALSE(described[0].contains("objectives"));
  EXPECT_FALSE(described[0].contains("reference"));
  EXPECT_EQ(described[1]["objectives"], 2);
  EXPECT_EQ(described[1]["reference"], nlohmann::json::parse("[18, 6]"));
  EXPECT_DOUBLE_EQ(described[1]["max_hypervolume"].get<double>(), 59.4066);
}

TEST(TwoObjectiveFunctionsTest, EvaluatorGivesBothValuesAndTheStudysRegret) {
  // Each line: "observed truth on_bound observed2 truth2 regret", the regret of the lines so far.
  std::istringstream in("0 0 0 0\n1 0 0 0\n0.25 0 0 0\n0.5 1 1 1\n");
  std::ostringstream out;
  ASSERT_TRUE(ServeEvaluations(Function("zdt1"), 1, in, out).ok());
  const double max = Function("zdt1").two_objectives->max_hypervolume;
  struct Line {
    Point values;
    double hypervolume;  // of this trial and those before it, by hand
  };
  const double g = 1 + 3 * 3;
  const std::vector<Line> expected = {
      {{0, 1}, 1.1 * 0.1},
      {{1, 0}, 1.1 * 0.1 + 0.1 * 1},
      {{0.25, 0.5}, 1.1 * 0.1 + 0.85 * 0.5 + 0.1 * 0.5},
      {{0.5, g * (1 - std::sqrt(0.5 / g))}, 1.1 * 0.1 + 0.85 * 0.5 + 0.1 * 0.5},  // outside
  };
  std::istringstream lines(out.str());
  for (const Line& line : expected) {
    double observed = 0;
    double truth = 0;
    int on_bound = 0;
    double observed2 = 0;
    double truth2 = 0;
    double regret = 0;
    std::string rest;
    lines >> observed >> truth >> on_bound >> observed2 >> truth2 >> regret;
    std::getline(lines, rest);
    ASSERT_TRUE(lines) << out.str();
    EXPECT_EQ(rest, "");
    EXPECT_DOUBLE_EQ(observed, line.values[0]);
    EXPECT_DOUBLE_EQ(truth, line.values[0]);
    EXPECT_EQ(on_bound, 1);
    EXPECT_DOUBLE_EQ(observed2, line.values[1]);
    EXPECT_DOUBLE_EQ(truth2, line.values[1]);
    EXPECT_NEAR(regret, max - line.hypervolume, 1e-12);
  }
  // A one-objective function's lines keep their three fields.
  std::istringstream branin_in("3 2\n");
  std::ostringstream branin_out;
  ASSERT_TRUE(ServeEvaluations(Function("branin"), 1, branin_in, branin_out).ok());
  std::istringstream fields(branin_out.str());
  std::vector<std::string> words;
  for (std::string word; fields >> word;) {
    words.push_back(word);
  }
  EXPECT_EQ(words.size(), 3U) << branin_out.str();
}

TEST(TwoObjectiveFunctionsTest, StudiesRunWithTwoMetrics) {
  // The executor's multi-metric path for each algorithm the benchmark runs: the hypervolume
  // regret starts at most at the maximum and never rises.
  for (const std::string name : {"branincurrin", "zdt1"}) {
    const double max = Function(name).two_objectives->max_hypervolume;
    for (const Variant& variant : KnownVariants()) {
      const Result<std::vector<TrialRecord>> records = RunStudy(Function(name), variant, 42, 12);
      ASSERT_TRUE(records.ok()) << name << " " << variant.name << ": "
                                << records.status().ToString();
      ASSERT_EQ(records->size(), 12U) << name << " " << variant.name;
      for (std::size_t i = 0; i < records->size(); ++i) {
        EXPECT_GT((*records)[i].regret, 0) << name << " " << variant.name;
        EXPECT_LE((*records)[i].regret, i > 0 ? (*records)[i - 1].regret : max)
            << name << " " << variant.name;
      }
    }
  }
}

TEST(TwoObjectiveFunctionsTest, GpStudySeesTheSecondMetric) {
  // ZDT1's front needs x2 = x3 = x4 = 0; uniform points seldom get below the reference point
  // (random search's best of 20 seeds keeps 58% of the regret after 100 trials). The GP on
  // ParEGO's scalarisations, which needs each trial's second value, halves the regret within 30
  // trials (14% is left after 25 at the median of 20 seeds); without the second values (a study
  // whose measurements do not reach Observation::more) it draws points as blindly as random
  // search and stays near the maximum.
  const TestFunction& zdt1 = Function("zdt1");
  const Result<std::vector<TrialRecord>> records = RunStudy(zdt1, KnownVariants().front(), 42, 30);
  ASSERT_TRUE(records.ok()) << records.status().ToString();
  EXPECT_LT(records->back().regret, zdt1.two_objectives->max_hypervolume / 2);
}

}  // namespace
}  // namespace trainyard::bench
