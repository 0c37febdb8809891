// GRID_SEARCH, RANDOM_SEARCH and MakeSuggester's refusals.
#include "tuning/suggest.h"

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tuning/spaces.h"

namespace trainyard::tuning {
namespace {

using namespace test_spaces;  // NOLINT(google-build-using-namespace): the test builders
using model::Algorithm;
using model::GoalType;
using ::testing::ElementsAre;

std::unique_ptr<Suggester> Make(const SearchSpace& space, Algorithm algorithm,
                                std::uint64_t seed = 1) {
  Result<std::unique_ptr<Suggester>> suggester =
      MakeSuggester(space, algorithm, GoalType::kMaximize, seed);
  EXPECT_TRUE(suggester.ok()) << suggester.status().ToString();
  return std::move(*suggester);
}

std::vector<Assignment> Suggest(Suggester& suggester, const StudyHistory& history, int count) {
  Result<std::vector<Assignment>> points = suggester.Suggest(history, count);
  EXPECT_TRUE(points.ok()) << points.status().ToString();
  return points.ok() ? *points : std::vector<Assignment>{};
}

std::string Describe(const Assignment& point) {
  std::string out;
  for (const ParameterValue& value : point) {
    if (!out.empty()) {
      out += ' ';
    }
    out += value.Text();
  }
  return out;
}

std::vector<std::string> Describe(const std::vector<Assignment>& points) {
  std::vector<std::string> out;
  out.reserve(points.size());
  for (const Assignment& point : points) {
    out.push_back(Describe(point));
  }
  return out;
}

// ---- MakeSuggester ----

struct RefusalCase {
  std::string name;
  Algorithm algorithm;
  std::string message;
};

class RefusalTest : public ::testing::TestWithParam<RefusalCase> {};

TEST_P(RefusalTest, SaysWhy) {
  const SearchSpace space = Space({Double("lr", 0.1, 1)});
  const Result<std::unique_ptr<Suggester>> suggester =
      MakeSuggester(space, GetParam().algorithm, GoalType::kMaximize, 1);
  ASSERT_FALSE(suggester.ok());
  EXPECT_EQ(suggester.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(suggester.status().message(), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Table, RefusalTest,
    ::testing::Values(
        RefusalCase{"GridOverDouble", Algorithm::kGridSearch,
                    "GRID_SEARCH cannot enumerate DOUBLE parameter lr; give it discrete values "
                    "(type DISCRETE) instead."},
        RefusalCase{"PopulationBased", Algorithm::kPopulationBasedTraining,
                    "trainyard does not run the POPULATION_BASED_TRAINING algorithm; use "
                    "ALGORITHM_UNSPECIFIED (Bayesian), GRID_SEARCH or RANDOM_SEARCH"}),
    [](const auto& tc) { return tc.param.name; });

// ---- GRID_SEARCH ----

TEST(GridSearch, WalksTheGridSkippingTriedPointsUntilExhausted) {
  const SearchSpace space = Space({Integer("n", 1, 2), Categorical("act", {"relu", "tanh"})});
  auto grid = Make(space, Algorithm::kGridSearch);
  StudyHistory history;
  EXPECT_THAT(Describe(Suggest(*grid, history, 2)), ElementsAre("1 relu", "1 tanh"));
  history.completed.push_back({.params = {Number("n", 1), Category("act", "relu")}});
  history.running.push_back({Number("n", 2), Category("act", "relu")});
  EXPECT_THAT(Describe(Suggest(*grid, history, 5)), ElementsAre("1 tanh", "2 tanh"));
  history.running.push_back({Number("n", 1), Category("act", "tanh")});
  history.running.push_back({Number("n", 2), Category("act", "tanh")});
  EXPECT_TRUE(Suggest(*grid, history, 3).empty());
}

TEST(GridSearch, IgnoresTrialsFromAnotherSpace) {
  const SearchSpace space = Space({Integer("n", 1, 3)});
  auto grid = Make(space, Algorithm::kGridSearch);
  StudyHistory history;
  history.running = {{Number("n", 7)}, {Number("n", 8)}, {Number("n", 2)}};
  EXPECT_THAT(Describe(Suggest(*grid, history, 3)), ElementsAre("1", "3"));
}

// ---- RANDOM_SEARCH ----

TEST(RandomSearch, IsDeterministicGivenSeedAndHistory) {
  const SearchSpace space = Space({Double("lr", 1e-4, 1, ScaleType::kUnitLogScale),
                                   Integer("n", 1, 100), Categorical("act", {"a", "b", "c"})});
  StudyHistory history;
  history.running.push_back(space.FromUnit(std::vector<double>{0.5, 0.5, 1, 0, 0}));
  const auto first = Suggest(*Make(space, Algorithm::kRandomSearch, 7), history, 4);
  const auto again = Suggest(*Make(space, Algorithm::kRandomSearch, 7), history, 4);
  const auto other_seed = Suggest(*Make(space, Algorithm::kRandomSearch, 8), history, 4);
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first, again);
  EXPECT_NE(first, other_seed);
  // A longer history starts another stream.
  history.running.push_back(first[0]);
  EXPECT_NE(Suggest(*Make(space, Algorithm::kRandomSearch, 7), history, 4)[0], first[1]);
}

TEST(RandomSearch, GivesEverySeedAndHistoryLengthItsOwnStream) {
  const SearchSpace space = Space({Double("x", 0, 1)});
  std::set<double> firsts;
  for (std::uint64_t seed = 0; seed < 100; ++seed) {
    StudyHistory history;
    for (int length = 0; length < 3; ++length) {
      const std::vector<Assignment> point =
          Suggest(*Make(space, Algorithm::kRandomSearch, seed), history, 1);
      ASSERT_EQ(point.size(), 1u);
      EXPECT_TRUE(firsts.insert(point[0][0].number).second)
          << "seed " << seed << ", " << length << " trials: " << point[0][0].number;
      history.running.push_back(point[0]);
    }
  }
}

struct CoverageCase {
  std::string name;
  ParameterSpec param;
  std::vector<double> edges;  // bins [edges[i], edges[i+1]), each expected to get an equal share
};

class RandomCoverageTest : public ::testing::TestWithParam<CoverageCase> {};

TEST_P(RandomCoverageTest, SpreadsEvenlyOverTheScaledRange) {
  auto random = Make(Space({GetParam().param}), Algorithm::kRandomSearch);
  constexpr int kDraws = 4000;
  const std::vector<Assignment> points = Suggest(*random, {}, kDraws);
  ASSERT_EQ(points.size(), static_cast<std::size_t>(kDraws));
  const std::vector<double>& edges = GetParam().edges;
  std::vector<int> bins(edges.size() - 1, 0);
  for (const Assignment& point : points) {
    for (std::size_t b = 0; b + 1 < edges.size(); ++b) {
      if (point[0].number >= edges[b] && point[0].number < edges[b + 1]) {
        ++bins[b];
      }
    }
  }
  const double expected = static_cast<double>(kDraws) / static_cast<double>(bins.size());
  for (std::size_t b = 0; b < bins.size(); ++b) {
    // Five binomial standard deviations at most.
    EXPECT_NEAR(bins[b], expected, 5 * std::sqrt(expected)) << "bin " << b;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, RandomCoverageTest,
    ::testing::Values(
        CoverageCase{"Linear", Double("x", 0, 10), {0, 2.5, 5, 7.5, 10.01}},
        CoverageCase{"LogUniform",
                     Double("x", 1e-4, 1, ScaleType::kUnitLogScale),
                     {1e-4, 1e-3, 1e-2, 1e-1, 1.01}},
        // Reverse log: the top decade of distance from max gets as much as the bottom ones.
        CoverageCase{
            "ReverseLog", Double("x", 1, 100, ScaleType::kUnitReverseLogScale), {1, 91, 100.01}},
        CoverageCase{
            "Integers", Integer("n", 1, 100'000), {0.5, 25'000.5, 50'000.5, 75'000.5, 100'000.5}}),
    [](const auto& tc) { return tc.param.name; });

TEST(RandomSearch, CoversAFiniteSpaceOnceThenStops) {
  const SearchSpace space = Space({Categorical("act", {"a", "b", "c"}), Integer("n", 1, 20)});
  auto random = Make(space, Algorithm::kRandomSearch);
  StudyHistory history;
  std::map<std::string, int> categories;
  std::set<std::string> seen;
  for (int round = 0; round < 20; ++round) {
    for (Assignment& point : Suggest(*random, history, 3)) {
      ++categories[point[0].category];
      EXPECT_TRUE(seen.insert(Describe(point)).second) << Describe(point);
      history.running.push_back(std::move(point));
    }
  }
  EXPECT_EQ(seen.size(), 60u);  // all 60 points of the space, each once
  EXPECT_EQ(categories["a"], 20);
  EXPECT_TRUE(Suggest(*random, history, 2).empty());
}

}  // namespace
}  // namespace trainyard::tuning
