// The suggester of a conditional study (tuning/conditional_suggester.h): suggestions made
// canonical, and grid points that differ only in an inactive parameter run once.
#include "tuning/conditional_suggester.h"

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tuning/spaces.h"

namespace trainyard::tuning {
namespace {

using namespace test_spaces;  // NOLINT(google-build-using-namespace): the test builders
using model::Algorithm;
using model::GoalType;

// optimizer {sgd, adam}; momentum {0.5, 0.9} only for sgd; width {32, 64} only for adam.
ConditionalSpace OptimizerSpace() {
  const std::vector<model::ParameterCondition> conditions = {{.parameter = "momentum",
                                                              .parent = "optimizer",
                                                              .parent_values = {},
                                                              .parent_categories = {"sgd"}},
                                                             {.parameter = "width",
                                                              .parent = "optimizer",
                                                              .parent_values = {},
                                                              .parent_categories = {"adam"}}};
  return *ConditionalSpace::Make(
      Spec({Categorical("optimizer", {"sgd", "adam"}), Discrete("momentum", {0.5, 0.9}),
            Discrete("width", {32, 64})}),
      conditions);
}

std::string Trial(const ConditionalSpace& space, const Assignment& point) {
  std::string out;
  for (const ParameterValue& value : space.Restrict(point)) {
    out += (out.empty() ? "" : " ") + value.Text();
  }
  return out;
}

// Runs a study of `algorithm` until the suggester has nothing new (at most `limit` trials), each
// trial observed at once; the trials' parameters in order.
std::vector<std::string> RunStudy(Algorithm algorithm, int limit) {
  const ConditionalSpace space = OptimizerSpace();
  Result<std::unique_ptr<Suggester>> suggester =
      MakeStudySuggester(space, algorithm, GoalType::kMaximize, 3);
  EXPECT_TRUE(suggester.ok()) << suggester.status().ToString();
  StudyHistory history;
  std::vector<std::string> trials;
  for (int i = 0; i < limit; ++i) {
    Result<std::vector<Assignment>> next = (*suggester)->Suggest(history, 1);
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || next->empty()) {
      break;
    }
    EXPECT_EQ(space.Canonical(next->front()), next->front()) << "suggestions are canonical";
    trials.push_back(Trial(space, next->front()));
    history.completed.push_back({next->front(), static_cast<double>(i)});
  }
  return trials;
}

TEST(ConditionalSuggesterTest, AGridRunsEachTrialOnce) {
  // The flat grid has 8 points; the trials they give are 4.
  EXPECT_EQ(RunStudy(Algorithm::kGridSearch, 20),
            (std::vector<std::string>{"sgd 0.5", "sgd 0.9", "adam 32", "adam 64"}));
}

TEST(ConditionalSuggesterTest, RandomAndBayesianNeverRepeatATrial) {
  for (const Algorithm algorithm : {Algorithm::kRandomSearch, Algorithm::kUnspecified}) {
    const std::vector<std::string> trials = RunStudy(algorithm, 4);
    EXPECT_EQ(trials.size(), 4U);
    EXPECT_EQ(std::set<std::string>(trials.begin(), trials.end()).size(), trials.size())
        << "a trial repeated";
  }
}

TEST(ConditionalSuggesterTest, WithoutConditionsItIsThePlainSuggester) {
  const ConditionalSpace flat = *ConditionalSpace::Make(
      Spec({Categorical("optimizer", {"sgd", "adam"}), Discrete("momentum", {0.5, 0.9})}), {});
  Result<std::unique_ptr<Suggester>> suggester =
      MakeStudySuggester(flat, Algorithm::kGridSearch, GoalType::kMaximize, 3);
  ASSERT_TRUE(suggester.ok());
  Result<std::vector<Assignment>> points = (*suggester)->Suggest(StudyHistory{}, 8);
  ASSERT_TRUE(points.ok());
  EXPECT_EQ(points->size(), 4U);
}

// A job's study is seeded the same on every server and run (a resumed or recovered study suggests
// as before): the values the executor's own FNV-1a loop gave, pinned.
TEST(StudySeed, IsTheSameForTheSameJobAndDiffersBetweenJobs) {
  EXPECT_EQ(StudySeed("my-proj", "tune_1"), 2596189034247943728ULL);
  EXPECT_NE(StudySeed("my-proj", "tune_2"), StudySeed("my-proj", "tune_1"));
}

}  // namespace
}  // namespace trainyard::tuning
