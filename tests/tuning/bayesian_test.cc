// The default algorithm: GP-EI Bayesian optimisation (ALGORITHM_UNSPECIFIED).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tuning/spaces.h"
#include "tuning/suggest.h"

namespace trainyard::tuning {
namespace {

using namespace test_spaces;  // NOLINT(google-build-using-namespace): the test builders
using model::Algorithm;
using model::GoalType;

using Objective = std::function<double(const Assignment&)>;

std::unique_ptr<Suggester> Make(const SearchSpace& space, Algorithm algorithm, GoalType goal,
                                std::uint64_t seed) {
  Result<std::unique_ptr<Suggester>> suggester = MakeSuggester(space, algorithm, goal, seed);
  EXPECT_TRUE(suggester.ok()) << suggester.status().ToString();
  return std::move(*suggester);
}

// Runs `trials` trials, `batch` suggested per call, each completed before the next call.
StudyHistory RunStudy(Suggester& suggester, const Objective& f, int trials, int batch = 1) {
  StudyHistory history;
  while (static_cast<int>(history.completed.size()) < trials) {
    const int count = std::min(batch, trials - static_cast<int>(history.completed.size()));
    Result<std::vector<Assignment>> points = suggester.Suggest(history, count);
    EXPECT_TRUE(points.ok()) << points.status().ToString();
    EXPECT_EQ(points->size(), static_cast<std::size_t>(count));
    if (!points.ok() || points->empty()) {
      break;
    }
    for (Assignment& point : *points) {
      const double objective = f(point);
      history.completed.push_back({.params = std::move(point), .objective = objective});
    }
  }
  return history;
}

double Best(const StudyHistory& history, GoalType goal) {
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  double best = goal == GoalType::kMinimize ? kInfinity : -kInfinity;
  for (const Observation& observation : history.completed) {
    best = goal == GoalType::kMinimize ? std::min(best, observation.objective)
                                       : std::max(best, observation.objective);
  }
  return best;
}

double Distance(const SearchSpace& space, const Assignment& a, const Assignment& b) {
  const std::vector<double> ua = *space.ToUnit(a);
  const std::vector<double> ub = *space.ToUnit(b);
  double sum = 0;
  for (std::size_t i = 0; i < ua.size(); ++i) {
    sum += (ua[i] - ub[i]) * (ua[i] - ub[i]);
  }
  return std::sqrt(sum);
}

std::string DescribeNamed(const Assignment& point) {
  std::string out;
  for (const ParameterValue& value : point) {
    out += value.name + "=" + value.Text() + " ";
  }
  return out;
}

// A bowl with its minimum 0 at x = 1.3, y = 7.1.
const SearchSpace& Plane() {
  static const SearchSpace space = Space({Double("x", -5, 5), Double("y", 0, 10)});
  return space;
}

double Bowl(const Assignment& p) {
  return (p[0].number - 1.3) * (p[0].number - 1.3) + (p[1].number - 7.1) * (p[1].number - 7.1);
}

TEST(BayesianSearch, IsDeterministicGivenSeedAndHistory) {
  const auto run = [](std::uint64_t seed) {
    auto suggester = Make(Plane(), Algorithm::kUnspecified, GoalType::kMinimize, seed);
    return RunStudy(*suggester, Bowl, 8);
  };
  const StudyHistory first = run(11);
  const StudyHistory again = run(11);
  const StudyHistory other = run(12);
  ASSERT_EQ(first.completed.size(), 8u);
  for (std::size_t i = 0; i < first.completed.size(); ++i) {
    EXPECT_EQ(first.completed[i].params, again.completed[i].params) << i;
  }
  EXPECT_NE(first.completed[0].params, other.completed[0].params);
  EXPECT_NE(first.completed[7].params, other.completed[7].params);
}

TEST(BayesianSearch, StartsWithDistinctSpreadDesignPoints) {
  auto suggester = Make(Plane(), Algorithm::kUnspecified, GoalType::kMinimize, 5);
  const std::vector<Assignment> design = *suggester->Suggest({}, 3);
  ASSERT_EQ(design.size(), 3u);
  for (std::size_t i = 0; i < design.size(); ++i) {
    for (std::size_t j = i + 1; j < design.size(); ++j) {
      EXPECT_GT(Distance(Plane(), design[i], design[j]), 0.2) << i << " " << j;
    }
  }
}

TEST(BayesianSearch, FindsTheMinimumOfABowlFarBetterThanRandom) {
  constexpr int kTrials = 30;
  for (const std::uint64_t seed : {1, 2, 3}) {
    auto bayes = Make(Plane(), Algorithm::kUnspecified, GoalType::kMinimize, seed);
    auto random = Make(Plane(), Algorithm::kRandomSearch, GoalType::kMinimize, seed);
    const double bayes_best = Best(RunStudy(*bayes, Bowl, kTrials), GoalType::kMinimize);
    const double random_best = Best(RunStudy(*random, Bowl, kTrials), GoalType::kMinimize);
    EXPECT_LT(bayes_best, 0.01) << "seed " << seed;
    EXPECT_LT(bayes_best, random_best / 20) << "seed " << seed << ", random " << random_best;
  }
}

TEST(BayesianSearch, MaximizeAndMinimizeSeekOppositeEnds) {
  const SearchSpace space = Space({Double("x", 0, 1)});
  const Objective slope = [](const Assignment& p) { return 3 * p[0].number; };
  auto up = Make(space, Algorithm::kUnspecified, GoalType::kMaximize, 4);
  auto down = Make(space, Algorithm::kUnspecified, GoalType::kMinimize, 4);
  auto unspecified = Make(space, Algorithm::kUnspecified, GoalType::kUnspecified, 4);
  EXPECT_GT(Best(RunStudy(*up, slope, 10), GoalType::kMaximize), 2.95);
  EXPECT_LT(Best(RunStudy(*down, slope, 10), GoalType::kMinimize), 0.05);
  EXPECT_GT(Best(RunStudy(*unspecified, slope, 10), GoalType::kMaximize), 2.95);  // = MAXIMIZE
}

TEST(BayesianSearch, SpreadsParallelSuggestionsOfOneCall) {
  auto suggester = Make(Plane(), Algorithm::kUnspecified, GoalType::kMinimize, 8);
  StudyHistory history = RunStudy(*suggester, Bowl, 10);
  const std::vector<Assignment> batch = *suggester->Suggest(history, 5);
  ASSERT_EQ(batch.size(), 5u);
  double total = 0;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    for (std::size_t j = i + 1; j < batch.size(); ++j) {
      const double distance = Distance(Plane(), batch[i], batch[j]);
      // Without the believer the batch collapses onto one point (what is left apart is the
      // candidates' spacing, well under 1e-3). Near a bowl's minimum two suggestions may still
      // be close: with the worst observation as the prior mean, the GP exploits there.
      EXPECT_GT(distance, 0.002) << DescribeNamed(batch[i]) << " vs " << DescribeNamed(batch[j]);
      total += distance;
    }
  }
  EXPECT_GT(total / 10, 0.05);  // the mean distance between two suggestions
}

TEST(BayesianSearch, AvoidsRunningTrials) {
  auto suggester = Make(Plane(), Algorithm::kUnspecified, GoalType::kMinimize, 8);
  StudyHistory history = RunStudy(*suggester, Bowl, 10);
  const Assignment alone = suggester->Suggest(history, 1)->front();
  history.running.push_back(alone);
  const Assignment next = suggester->Suggest(history, 1)->front();
  EXPECT_GT(Distance(Plane(), alone, next), 0.02)
      << DescribeNamed(alone) << " vs " << DescribeNamed(next);
}

TEST(BayesianSearch, GivesValidDistinctValuesInAMixedSpace) {
  const SearchSpace space =
      Space({Double("lr", 1e-4, 1, ScaleType::kUnitLogScale), Integer("layers", 1, 8),
             Discrete("batch", {16, 32, 64, 128}), Categorical("act", {"relu", "tanh", "gelu"})});
  const Objective score = [](const Assignment& p) {
    const double lr = std::log10(p[0].number) + 2.5;
    return -lr * lr - (p[1].number - 5) * (p[1].number - 5) / 10 +
           (p[3].category == "gelu" ? 0.5 : 0) + (p[2].number == 64 ? 0.3 : 0);
  };
  auto suggester = Make(space, Algorithm::kUnspecified, GoalType::kMaximize, 21);
  const StudyHistory history = RunStudy(*suggester, score, 24, /*batch=*/3);
  ASSERT_EQ(history.completed.size(), 24u);
  std::set<std::string> seen;
  for (const Observation& trial : history.completed) {
    const Assignment& p = trial.params;
    EXPECT_TRUE(space.ToUnit(p).ok()) << DescribeNamed(p);
    EXPECT_EQ(p[1].number, std::round(p[1].number)) << DescribeNamed(p);
    EXPECT_TRUE(seen.insert(DescribeNamed(p)).second) << "repeated " << DescribeNamed(p);
  }
  // The optimum is 0.8 (lr 10^-2.5, 5 layers, batch 64, gelu): the best trial has its category
  // and about its depth.
  const auto best = std::ranges::max_element(history.completed, {}, &Observation::objective);
  EXPECT_EQ(best->params[3].category, "gelu") << DescribeNamed(best->params);
  EXPECT_NEAR(best->params[1].number, 5, 1) << DescribeNamed(best->params);
}

TEST(BayesianSearch, StopsWhenAFiniteSpaceIsExhausted) {
  const SearchSpace space = Space({Integer("n", 1, 2), Categorical("act", {"relu", "tanh"})});
  auto suggester = Make(space, Algorithm::kUnspecified, GoalType::kMaximize, 1);
  StudyHistory history;
  history.completed.push_back(
      {.params = {Number("n", 1), Category("act", "relu")}, .objective = 1});
  history.completed.push_back(
      {.params = {Number("n", 2), Category("act", "relu")}, .objective = 2});
  const std::vector<Assignment> rest = *suggester->Suggest(history, 5);
  ASSERT_EQ(rest.size(), 2u);
  EXPECT_NE(rest[0], rest[1]);
  for (const Assignment& point : rest) {
    EXPECT_EQ(point[1].category, "tanh");
    history.running.push_back(point);
  }
  EXPECT_TRUE(suggester->Suggest(history, 1)->empty());
}

TEST(BayesianSearch, SkipsTrialsWithoutAUsableObjective) {
  auto suggester = Make(Plane(), Algorithm::kUnspecified, GoalType::kMinimize, 2);
  StudyHistory history = RunStudy(*suggester, Bowl, 6);
  history.completed[2].objective = std::numeric_limits<double>::quiet_NaN();
  history.completed.push_back({.params = {Number("x", 99), Number("y", 1)}, .objective = -5});
  const Result<std::vector<Assignment>> next = suggester->Suggest(history, 2);
  ASSERT_TRUE(next.ok());
  ASSERT_EQ(next->size(), 2u);
  for (const Assignment& point : *next) {
    EXPECT_TRUE(Plane().ToUnit(point).ok());
    EXPECT_GT(Distance(Plane(), point, history.completed[2].params), 1e-9);
  }
}

}  // namespace
}  // namespace trainyard::tuning
