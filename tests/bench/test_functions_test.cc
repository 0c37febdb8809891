// The tuning benchmark's test functions (bench/tuning/test_functions.h): each takes its stated
// minimum at its stated point, the conditional one ignores the parameters a trial does not have
// and is never below its minimum, and the evaluation protocol the Optuna peer speaks
// (bench/tuning/peer_io.h) describes conditions and refuses a trial that lacks an active one.
#include "bench/tuning/test_functions.h"

#include <cmath>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "bench/function_lookup.h"
#include "bench/tuning/peer_io.h"
#include "bench/tuning/study_runner.h"

namespace trainyard::bench {
namespace {

// The function's noise-free value at a trial given as its `hyperparameters` map would be (name,
// text), read back as the executor reads trials.
double ValueAt(const TestFunction& function,
               const std::vector<std::pair<std::string, std::string>>& trial) {
  const Result<tuning::ConditionalSpace> space = SpaceFor(function);
  EXPECT_TRUE(space.ok()) << space.status().ToString();
  const Result<tuning::Assignment> full = space->Parse(trial);
  EXPECT_TRUE(full.ok()) << full.status().ToString();
  return function.evaluate(ArgumentsOf(function, space->Restrict(*full)));
}

TEST(TestFunctionsTest, StatedMinimaAndBranchMinima) {
  const std::string lr_adam = "0.00050118723362727229";    // 10^-3.3
  const std::string lr_rmsprop = "0.0019952623149688796";  // 10^-2.7
  struct Case {
    std::string function;
    std::vector<std::pair<std::string, std::string>> trial;
    double value;
    double tolerance;
  };
  const std::vector<Case> cases = {
      {"branin", {{"x1", "3.141592653589793"}, {"x2", "2.275"}}, 0.397887357729738, 1e-9},
      {"hartmann6",
       {{"x1", "0.20169"},
        {"x2", "0.150011"},
        {"x3", "0.476874"},
        {"x4", "0.275332"},
        {"x5", "0.311652"},
        {"x6", "0.6573"}},
       -3.32236801141551,
       1e-9},
      {"rosenbrock4", {{"x1", "1"}, {"x2", "1"}, {"x3", "1"}, {"x4", "1"}}, 0, 0},
      {"ackley5", {{"x1", "0"}, {"x2", "0"}, {"x3", "0"}, {"x4", "0"}, {"x5", "0"}}, 0, 1e-12},
      {"mixed5",
       {{"learning_rate", "0.0031622776601683794"},
        {"layers", "3"},
        {"batch_size", "64"},
        {"momentum", "0.95"},
        {"optimizer", "adam"}},
       0,
       1e-12},
      {"levy10",
       {{"x1", "1"},
        {"x2", "1"},
        {"x3", "1"},
        {"x4", "1"},
        {"x5", "1"},
        {"x6", "1"},
        {"x7", "1"},
        {"x8", "1"},
        {"x9", "1"},
        {"x10", "1"}},
       0,
       1e-12},
      // The global minimum, then each other branch's own minimum.
      {"optimizer8",
       {{"learning_rate", "0.01"},
        {"layers", "6"},
        {"optimizer", "sgd"},
        {"momentum", "0.9"},
        {"nesterov", "1"}},
       0,
       1e-12},
      {"optimizer8",
       {{"learning_rate", lr_adam},
        {"layers", "3"},
        {"optimizer", "adam"},
        {"beta1", "0.93"},
        {"beta2", "0.98"}},
       0.3,
       1e-12},
      {"optimizer8",
       {{"learning_rate", lr_rmsprop}, {"layers", "4"}, {"optimizer", "rmsprop"}, {"rho", "0.95"}},
       0.15,
       1e-12},
      // Next to the minimum, each step away costs.
      {"optimizer8",
       {{"learning_rate", "0.01"},
        {"layers", "6"},
        {"optimizer", "sgd"},
        {"momentum", "0.9"},
        {"nesterov", "0"}},
       0.15,
       1e-12},
      {"optimizer8",
       {{"learning_rate", "0.01"},
        {"layers", "5"},
        {"optimizer", "sgd"},
        {"momentum", "0.9"},
        {"nesterov", "1"}},
       0.04,
       1e-12},
  };
  for (const Case& c : cases) {
    const TestFunction& function = Function(c.function);
    EXPECT_NEAR(ValueAt(function, c.trial), c.value, c.tolerance) << c.function;
  }
  EXPECT_EQ(Function("optimizer8").minimum, 0);
}

TEST(TestFunctionsTest, ConditionalFunctionIgnoresInactiveParameters) {
  // Each line has one branch's parameters, then the same with the other branches' parameters
  // given too (the evaluator drops them), or at other values than before.
  struct Case {
    std::string bare;
    std::string with_inactive;
  };
  const std::vector<Case> cases = {
      {"0.01 6 sgd 0.9 1 - - -", "0.01 6 sgd 0.9 1 0.81 0.9 0.998"},
      {"0.003 2 sgd 0.5 0 - - -", "0.003 2 sgd 0.5 0 0.99 0.9999 0.8"},
      {"0.0005 3 adam - - 0.93 0.98 -", "0.0005 3 adam 0 0 0.93 0.98 0.8"},
      {"0.1 8 adam - - 0.8 0.9 -", "0.1 8 adam 0.99 1 0.8 0.9 0.9"},
      {"0.002 4 rmsprop - - - - 0.95", "0.002 4 rmsprop 0.2 1 0.85 0.95 0.95"},
  };
  const TestFunction& function = Function("optimizer8");
  for (const Case& c : cases) {
    std::istringstream in(c.bare + "\n" + c.with_inactive + "\n");
    std::ostringstream out;
    ASSERT_TRUE(ServeEvaluations(function, 1, in, out).ok()) << c.bare;
    std::istringstream lines(out.str());
    std::string bare;
    std::string with_inactive;
    std::getline(lines, bare);
    std::getline(lines, with_inactive);
    EXPECT_EQ(bare, with_inactive) << c.bare;
  }
  // And the function itself reads none of them: NaN in their places changes nothing.
  std::vector<double> x = {0.003, 2, 0, 0.5, 0, 0.9, 0.95, 0.9};
  const double value = function.evaluate(x);
  x[5] = x[6] = x[7] = std::nan("");
  EXPECT_EQ(function.evaluate(x), value);
}

TEST(TestFunctionsTest, ConditionalFunctionNeverBelowItsMinimum) {
  // Random points of the whole space (every branch), as a suggester's canonical trials.
  const TestFunction& function = Function("optimizer8");
  const Result<tuning::ConditionalSpace> space = SpaceFor(function);
  ASSERT_TRUE(space.ok());
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> unit(0, 1);
  double lowest = 1e9;
  for (int i = 0; i < 20000; ++i) {
    std::vector<double> u(space->flat().unit_dimensions());
    for (double& v : u) {
      v = unit(rng);
    }
    const tuning::Assignment trial = space->Restrict(space->flat().FromUnit(u));
    const double value = function.evaluate(ArgumentsOf(function, trial));
    ASSERT_TRUE(std::isfinite(value));
    ASSERT_GE(value, function.minimum);
    lowest = std::min(lowest, value);
  }
  EXPECT_LT(lowest, 0.5);  // the sample did reach the low basins
}

TEST(TestFunctionsTest, EvaluatorRefusesBadTrials) {
  struct Case {
    std::string function;
    std::string line;
    std::string error;
  };
  const std::vector<Case> cases = {
      {"optimizer8", "0.01 6 sgd - 1 - - -", "no value for parameter momentum"},
      {"optimizer8", "0.01 6 adam 0.9 1 - 0.98 -", "no value for parameter beta1"},
      {"optimizer8", "0.01 6 lion - - - - -", "parameter optimizer: 'lion' is not one"},
      {"optimizer8", "0.01 6 sgd 0.9x 1 - - -", "momentum"},
      {"mixed5", "0.01 3 64 0.9 lion", "parameter optimizer: 'lion' is not one"},
      {"branin", "- 2", "no value for parameter x1"},
      {"branin", "1 two", "x2"},
  };
  for (const Case& c : cases) {
    std::istringstream in(c.line + "\n");
    std::ostringstream out;
    const Status served = ServeEvaluations(Function(c.function), 1, in, out);
    EXPECT_EQ(served.code(), Code::kInvalidArgument) << c.line;
    EXPECT_NE(served.message().find(c.error), std::string::npos) << served.message();
    EXPECT_EQ(out.str(), "") << c.line;
  }
}

TEST(TestFunctionsTest, EvaluatorTakesValuesAnUlpOutsideALogRange) {
  // What Optuna gives for a log-scaled parameter at its lower bound: exp(log(1e-5)) < 1e-5.
  std::istringstream in("9.9999999999999974e-06 6 sgd 0.9 1 - - -\n");
  std::ostringstream out;
  ASSERT_TRUE(ServeEvaluations(Function("optimizer8"), 1, in, out).ok());
  EXPECT_NE(out.str(), "");
}

TEST(TestFunctionsTest, DescriptionCarriesConditions) {
  const nlohmann::json described =
      nlohmann::json::parse(DescribeJson({&Function("branin"), &Function("optimizer8")}));
  ASSERT_EQ(described.size(), 2U);
  for (const nlohmann::json& param : described[0]["params"]) {
    EXPECT_FALSE(param.contains("condition")) << param;
  }
  std::vector<std::string> conditional;
  for (const nlohmann::json& param : described[1]["params"]) {
    if (param.contains("condition")) {
      EXPECT_EQ(param["condition"]["parent"], "optimizer");
      conditional.push_back(param["name"].get<std::string>() + ":" +
                            param["condition"]["values"][0].get<std::string>());
    }
  }
  EXPECT_EQ(conditional, (std::vector<std::string>{"momentum:sgd", "nesterov:sgd", "beta1:adam",
                                                   "beta2:adam", "rho:rmsprop"}));
}

TEST(TestFunctionsTest, StudyOnConditionalSpaceRuns) {
  // The executor's path (MakeStudySuggester, trials with their active parameters only) for each
  // algorithm the benchmark runs, a few trials each.
  for (const Variant& variant : KnownVariants()) {
    const Result<std::vector<TrialRecord>> records =
        RunStudy(Function("optimizer8"), variant, 42, 12);
    ASSERT_TRUE(records.ok()) << variant.name << ": " << records.status().ToString();
    ASSERT_EQ(records->size(), 12U) << variant.name;
    for (std::size_t i = 0; i < records->size(); ++i) {
      EXPECT_GE((*records)[i].regret, 0) << variant.name;
      if (i > 0) {
        EXPECT_LE((*records)[i].regret, (*records)[i - 1].regret) << variant.name;
      }
    }
  }
}

}  // namespace
}  // namespace trainyard::bench
