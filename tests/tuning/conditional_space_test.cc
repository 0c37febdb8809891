// Conditional parameters (tuning/conditional_space.h): which are active, what a trial gets, how
// a trial is completed for the suggesters, and which conditions are refused.
#include "tuning/conditional_space.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tuning/spaces.h"

namespace trainyard::tuning {
namespace {

using namespace test_spaces;  // NOLINT(google-build-using-namespace): the test builders

// optimizer {sgd, adam}; momentum only for sgd; layers 1..4; width only for 2 or 3 layers;
// dropout (a child of width's parent's child) only when width is active and 64.
model::HyperparameterSpec SpaceSpec() {
  model::HyperparameterSpec spec;
  spec.params = {Categorical("optimizer", {"sgd", "adam"}), Double("momentum", 0.5, 0.99),
                 Integer("layers", 1, 4), Discrete("width", {32, 64, 128}),
                 Double("dropout", 0, 0.5)};
  return spec;
}

using model::ParameterCondition;

std::vector<ParameterCondition> Conditions() {
  return {
      {.parameter = "momentum",
       .parent = "optimizer",
       .parent_values = {},
       .parent_categories = {"sgd"}},
      {.parameter = "width", .parent = "layers", .parent_values = {2, 3}, .parent_categories = {}},
      {.parameter = "dropout", .parent = "width", .parent_values = {64}, .parent_categories = {}}};
}

Assignment Full(const std::string& optimizer, double layers, double width) {
  return {{.name = "optimizer", .number = 0, .category = optimizer},
          {.name = "momentum", .number = 0.9, .category = ""},
          {.name = "layers", .number = layers, .category = ""},
          {.name = "width", .number = width, .category = ""},
          {.name = "dropout", .number = 0.2, .category = ""}};
}

std::vector<std::string> Names(const Assignment& assignment) {
  std::vector<std::string> names;
  for (const ParameterValue& value : assignment) {
    names.push_back(value.name);
  }
  return names;
}

TEST(ConditionalSpaceTest, ActiveAndRestricted) {
  const ConditionalSpace space = *ConditionalSpace::Make(SpaceSpec(), Conditions());
  struct Case {
    Assignment full;
    std::vector<std::string> trial;
  };
  const std::vector<Case> cases = {
      {Full("sgd", 1, 64), {"optimizer", "momentum", "layers"}},
      {Full("adam", 2, 32), {"optimizer", "layers", "width"}},
      {Full("adam", 3, 64), {"optimizer", "layers", "width", "dropout"}},
      // dropout's parent is inactive, so dropout is too, whatever width's value.
      {Full("sgd", 4, 64), {"optimizer", "momentum", "layers"}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Names(space.Restrict(c.full)), c.trial) << c.full[0].category << c.full[2].number;
  }
}

TEST(ConditionalSpaceTest, CompleteFillsInactiveWithStandIns) {
  const ConditionalSpace space = *ConditionalSpace::Make(SpaceSpec(), Conditions());
  const Assignment trial = space.Restrict(Full("adam", 2, 128));
  const Result<Assignment> full = space.Complete(trial);
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  ASSERT_EQ(full->size(), 5U);
  EXPECT_EQ((*full)[0].category, "adam");
  EXPECT_EQ((*full)[1].number, 0.5);  // momentum inactive: its low end
  EXPECT_EQ((*full)[3].number, 128);  // width active: as given
  EXPECT_EQ((*full)[4].number, 0);    // dropout inactive: its low end
  // A completed trial is a point of the flat space the suggesters work on.
  EXPECT_TRUE(space.flat().ToUnit(*full).ok());
  // Restricting again gives the trial back.
  EXPECT_EQ(space.Restrict(*full), trial);
}

TEST(ConditionalSpaceTest, CompleteNeedsEveryActiveParameter) {
  const ConditionalSpace space = *ConditionalSpace::Make(SpaceSpec(), Conditions());
  Assignment trial = space.Restrict(Full("sgd", 1, 32));
  trial.erase(trial.begin() + 1);  // momentum, active for sgd
  const Result<Assignment> full = space.Complete(trial);
  ASSERT_FALSE(full.ok());
  EXPECT_NE(full.status().ToString().find("momentum"), std::string::npos)
      << full.status().ToString();
}

TEST(ConditionalSpaceTest, ParseReadsATrialsMap) {
  const ConditionalSpace space = *ConditionalSpace::Make(SpaceSpec(), Conditions());
  const Result<Assignment> full =
      space.Parse({{"layers", "3"}, {"optimizer", "adam"}, {"width", "64"}, {"dropout", "0.25"}});
  ASSERT_TRUE(full.ok()) << full.status().ToString();
  EXPECT_EQ(Names(space.Restrict(*full)),
            (std::vector<std::string>{"optimizer", "layers", "width", "dropout"}));
  EXPECT_EQ((*full)[4].number, 0.25);
  const Result<Assignment> bad = space.Parse({{"optimizer", "adam"}, {"layers", "2.5"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().ToString().find("layers"), std::string::npos);
}

TEST(ConditionalSpaceTest, NoConditionsIsTheFlatSpace) {
  const ConditionalSpace space = *ConditionalSpace::Make(SpaceSpec(), {});
  const Assignment full = Full("sgd", 4, 32);
  EXPECT_EQ(space.Restrict(full), full);
  EXPECT_FALSE(space.Parse({{"optimizer", "sgd"}}).ok());  // every parameter is active
}

TEST(ConditionalSpaceTest, RefusesBadConditions) {
  struct Case {
    std::size_t child;
    ParameterCondition condition;
    std::string message;
  };
  auto on = [](std::string child, std::string parent, std::vector<double> values,
               std::vector<std::string> categories = {}) {
    return ParameterCondition{.parameter = std::move(child),
                              .parent = std::move(parent),
                              .parent_values = std::move(values),
                              .parent_categories = std::move(categories)};
  };
  const std::vector<Case> cases = {
      {1, on("momentum", "optimizer", {}, {"rmsprop"}),
       "rmsprop is not a value of parameter optimizer"},
      {1, on("momentum", "optimizer", {1}), "needs parent categories"},
      {3, on("width", "layers", {5}), "5 is not a value of parameter layers"},
      {3, on("width", "layers", {2.5}), "2.5 is not a value of parameter layers"},
      {4, on("dropout", "width", {48}), "48 is not a value of parameter width"},
      {4, on("dropout", "momentum", {0.9}), "momentum is DOUBLE"},
      {2, on("layers", "width", {64}), "the parent of parameter layers must come before it"},
      {2, on("layers", "depth", {1}), "the parent of parameter layers must come before it"},
  };
  for (const Case& c : cases) {
    const std::vector<ParameterCondition> conditions = {c.condition};
    const Result<ConditionalSpace> space = ConditionalSpace::Make(SpaceSpec(), conditions);
    ASSERT_FALSE(space.ok()) << c.message;
    EXPECT_NE(space.status().ToString().find(c.message), std::string::npos)
        << space.status().ToString();
    EXPECT_NE(
        space.status().ToString().find("parameters[" + std::to_string(c.child) + "].condition"),
        std::string::npos)
        << space.status().ToString();
  }
  const std::vector<ParameterCondition> twice = {on("width", "layers", {2}),
                                                 on("width", "layers", {3})};
  const Result<ConditionalSpace> doubled = ConditionalSpace::Make(SpaceSpec(), twice);
  ASSERT_FALSE(doubled.ok());
  EXPECT_NE(doubled.status().ToString().find("width has two conditions"), std::string::npos);
  const std::vector<ParameterCondition> stranger = {on("depth", "layers", {2})};
  const Result<ConditionalSpace> unknown = ConditionalSpace::Make(SpaceSpec(), stranger);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().ToString().find("names parameter depth"), std::string::npos);
}

}  // namespace
}  // namespace trainyard::tuning
