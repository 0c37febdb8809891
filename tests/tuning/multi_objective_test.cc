// Multi-objective studies (tuning/multi_objective.h): the Pareto front, ParEGO's weights and
// scalarisation, and the suggester that hands scalarised histories to a single-objective one.
#include "tuning/multi_objective.h"

#include <cmath>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tuning/conditional_suggester.h"
#include "tuning/spaces.h"

namespace trainyard::tuning {
namespace {

using namespace test_spaces;  // NOLINT(google-build-using-namespace): the test builders
using model::GoalType;
using ::testing::DoubleNear;
using ::testing::ElementsAre;
using ::testing::Pointwise;

constexpr GoalType kMax = GoalType::kMaximize;
constexpr GoalType kMin = GoalType::kMinimize;

TEST(ParetoFrontTest, KeepsTheTrialsNoOtherDominates) {
  const struct {
    std::string name;
    std::vector<std::vector<double>> values;
    std::vector<GoalType> goals;
    std::vector<std::size_t> front;
  } cases[] = {
      {"NoTrials", {}, {kMax, kMin}, {}},
      {"OneTrial", {{1, 1}}, {kMax, kMin}, {0}},
      {"MaxAndMin", {{0.9, 5}, {0.8, 3}, {0.7, 4}, {0.9, 6}}, {kMax, kMin}, {0, 1}},
      {"BothMaximised", {{0.9, 5}, {0.8, 3}, {0.7, 4}, {0.9, 6}}, {kMax, kMax}, {3}},
      {"BothMinimised", {{0.9, 5}, {0.8, 3}, {0.7, 4}, {0.9, 6}}, {kMin, kMin}, {1, 2}},
      {"EqualTrialsAreAllKept", {{1, 2}, {1, 2}, {0, 3}}, {kMax, kMin}, {0, 1}},
      {"ThreeMetrics", {{1, 1, 1}, {2, 0, 1}, {1, 1, 0}, {0, 2, 2}}, {kMax, kMin, kMin}, {1, 2}},
  };
  for (const auto& c : cases) {
    EXPECT_EQ(ParetoFront(c.values, c.goals), c.front) << c.name;
  }
}

TEST(ScalarisationWeightsTest, AreOnTheSimplexAndFixedBySeedAndTrialCount) {
  for (const std::size_t objectives : {2U, 3U, 5U}) {
    for (std::size_t trials = 0; trials < 20; ++trials) {
      const std::vector<double> weights = ScalarisationWeights(7, trials, objectives);
      ASSERT_EQ(weights.size(), objectives);
      EXPECT_NEAR(std::accumulate(weights.begin(), weights.end(), 0.0), 1.0, 1e-12);
      for (const double weight : weights) {
        EXPECT_GT(weight, 0);
      }
      EXPECT_EQ(weights, ScalarisationWeights(7, trials, objectives));
    }
  }
  EXPECT_NE(ScalarisationWeights(7, 3, 2), ScalarisationWeights(7, 4, 2));
  EXPECT_NE(ScalarisationWeights(7, 3, 2), ScalarisationWeights(8, 3, 2));
}

TEST(ScalariseTest, NormalisesEachObjectiveWithItsGoalsSign) {
  const struct {
    std::string name;
    std::vector<std::vector<double>> values;
    std::vector<GoalType> goals;
    std::vector<double> weights;
    std::vector<double> scalars;
  } cases[] = {
      {"NoTrials", {}, {kMax, kMin}, {0.5, 0.5}, {}},
      // One trial, or every value equal: the objective is 0 (as good as the best) everywhere.
      {"OneTrial", {{0.9, 3}}, {kMax, kMin}, {0.5, 0.5}, {0}},
      {"EqualValues", {{0.9, 3}, {0.9, 3}}, {kMax, kMin}, {0.3, 0.7}, {0, 0}},
      {"OneObjectiveEqual", {{0.9, 3}, {0.9, 5}}, {kMax, kMin}, {0.5, 0.5}, {0, 0.5 + 0.05 * 0.5}},
      // The best of each is 0 and the worst 1, whichever its direction.
      {"MaximiseThenMinimise",
       {{1, 10}, {0, 0}, {0.5, 5}},
       {kMax, kMin},
       {0.5, 0.5},
       {0.5 + 0.05 * 0.5, 0.5 + 0.05 * 0.5, 0.25 + 0.05 * 0.5}},
      {"BothMinimised",
       {{1, 10}, {0, 0}, {0.5, 5}},
       {kMin, kMin},
       {0.5, 0.5},
       {0.5 + 0.05 * 1, 0, 0.25 + 0.05 * 0.5}},
      {"WeightsPickTheTradeOff",
       {{1, 10}, {0, 0}},
       {kMax, kMin},
       {0.9, 0.1},
       {0.1 + 0.05 * 0.1, 0.9 + 0.05 * 0.9}},
  };
  for (const auto& c : cases) {
    EXPECT_THAT(Scalarise(c.values, c.goals, c.weights), Pointwise(DoubleNear(1e-12), c.scalars))
        << c.name;
  }
}

// A single-objective suggester that records what it was asked and suggests n = trials + 1.
class Recorder final : public Suggester {
 public:
  explicit Recorder(std::vector<StudyHistory>* asked) : asked_(asked) {}
  Result<std::vector<Assignment>> Suggest(const StudyHistory& history, int count) override {
    asked_->push_back(history);
    EXPECT_EQ(count, 1);
    const auto n = static_cast<double>(history.completed.size() + history.running.size() + 1);
    return std::vector<Assignment>{{Number("n", n)}};
  }

 private:
  std::vector<StudyHistory>* asked_;
};

TEST(ScalarisingSuggesterTest, HandsTheSingleObjectiveOneAScalarisedHistory) {
  std::vector<StudyHistory> asked;
  const std::unique_ptr<Suggester> suggester =
      MakeScalarisingSuggester({kMax, kMin}, 11, std::make_unique<Recorder>(&asked));
  StudyHistory history;
  history.completed = {{.params = {Number("n", 1)}, .objective = 0.9, .more = {5}},
                       {.params = {Number("n", 2)}, .objective = 0.7, .more = {3}},
                       {.params = {Number("n", 3)}, .objective = 0.8}};  // a metric missing
  history.running = {{Number("n", 4)}};
  Result<std::vector<Assignment>> next = suggester->Suggest(history, 2);
  ASSERT_TRUE(next.ok()) << next.status().ToString();
  ASSERT_EQ(asked.size(), 2U);
  // A trial without every metric is a point not to try again; each suggestion its own weights.
  for (std::size_t i = 0; i < asked.size(); ++i) {
    ASSERT_EQ(asked[i].completed.size(), 2U);
    EXPECT_EQ(asked[i].running.size(), 2U + i);
    const std::vector<double> weights = ScalarisationWeights(11, 4 + i, 2);
    const std::vector<std::vector<double>> values = {{0.9, 5}, {0.7, 3}};
    const std::vector<GoalType> goals = {kMax, kMin};
    const std::vector<double> scalars = Scalarise(values, goals, weights);
    EXPECT_EQ(asked[i].completed[0].objective, scalars[0]);
    EXPECT_EQ(asked[i].completed[1].objective, scalars[1]);
  }
  EXPECT_EQ(next->size(), 2U);
}

// The Gaussian-process search on two objectives: suggestions run and are reproducible; grid
// search is not scalarised (it does not look at metrics).
TEST(ScalarisingSuggesterTest, AStudySuggesterRunsTwoObjectivesReproducibly) {
  const ConditionalSpace space = *ConditionalSpace::Make(Spec({Double("x", 0, 1)}), {});
  const std::vector<GoalType> extra = {kMin};
  auto run = [&] {
    Result<std::unique_ptr<Suggester>> suggester =
        MakeStudySuggester(space, model::Algorithm::kUnspecified, kMax, 5, extra);
    EXPECT_TRUE(suggester.ok()) << suggester.status().ToString();
    StudyHistory history;
    std::vector<double> xs;
    for (int i = 0; i < 6; ++i) {
      Result<std::vector<Assignment>> next = (*suggester)->Suggest(history, 1);
      EXPECT_TRUE(next.ok() && next->size() == 1);
      if (!next.ok() || next->empty()) {
        break;
      }
      const double x = next->front()[0].number;
      xs.push_back(x);
      // Conflicting objectives: x up is better for the first and worse for the second.
      history.completed.push_back(
          {.params = next->front(), .objective = x, .more = {std::pow(x, 2)}});
    }
    return xs;
  };
  const std::vector<double> first = run();
  EXPECT_EQ(first.size(), 6U);
  EXPECT_EQ(first, run());
  Result<std::unique_ptr<Suggester>> grid =
      MakeStudySuggester(*ConditionalSpace::Make(Spec({Discrete("d", {1, 2})}), {}),
                         model::Algorithm::kGridSearch, kMax, 5, extra);
  ASSERT_TRUE(grid.ok());
  EXPECT_THAT(*(*grid)->Suggest({}, 3),
              ElementsAre(ElementsAre(Number("d", 1)), ElementsAre(Number("d", 2))));
}

}  // namespace
}  // namespace trainyard::tuning
