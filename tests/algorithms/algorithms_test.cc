// The built-in algorithms' table (algorithms/algorithms.h, data/builtin_algorithms.json): Google's
// image names find their algorithm, with or without a tag, and the table is consistent (every
// default is a valid value of its argument, every available algorithm says how it runs).
#include "algorithms/algorithms.h"

#include <algorithm>
#include <charconv>
#include <string>

#include <gtest/gtest.h>

namespace trainyard::algorithms {
namespace {

struct LookupCase {
  std::string image;
  std::string algorithm;  // "" for none
};

class FindAlgorithmTest : public ::testing::TestWithParam<LookupCase> {};

TEST_P(FindAlgorithmTest, ByGooglesImageName) {
  const Algorithm* found = FindAlgorithm(GetParam().image);
  EXPECT_EQ(found == nullptr ? "" : found->name, GetParam().algorithm) << GetParam().image;
}

INSTANTIATE_TEST_SUITE_P(
    Images, FindAlgorithmTest,
    ::testing::Values(
        LookupCase{"gcr.io/cloud-ml-algos/boosted_trees:latest", "xgboost"},
        LookupCase{"gcr.io/cloud-ml-algos/boosted_trees", "xgboost"},
        LookupCase{"gcr.io/cloud-ml-algos/boosted_trees@sha256:00ff", "xgboost"},
        LookupCase{"gcr.io/cloud-ml-algos/xgboost_dist:latest", "xgboost_distributed"},
        LookupCase{"gcr.io/cloud-ml-algos/linear_learner_gpu:latest", "linear_learner"},
        LookupCase{"gcr.io/cloud-ml-algos/wide_deep_learner_cpu", "wide_deep"},
        LookupCase{"gcr.io/cloud-ml-algos/boosted_trees_x:latest", ""},
        LookupCase{"localhost:5000/cloud-ml-algos/boosted_trees", ""}, LookupCase{"", ""}));

TEST(BuiltinAlgorithms, BothXgboostsTheLinearLearnerAndWideAndDeepRunHere) {
  for (const Algorithm& algorithm : BuiltinAlgorithms()) {
    EXPECT_EQ(algorithm.available,
              algorithm.name == "xgboost" || algorithm.name == "xgboost_distributed" ||
                  algorithm.name == "linear_learner" || algorithm.name == "wide_deep")
        << algorithm.name;
    EXPECT_FALSE(algorithm.display_name.empty());
    EXPECT_FALSE(algorithm.images.empty());
    if (algorithm.available) {
      EXPECT_EQ(algorithm.python, "/usr/bin/python3");  // Debian's, with python3-xgboost, -torch
      EXPECT_FALSE(algorithm.module.empty());
      EXPECT_FALSE(algorithm.framework.empty());
      EXPECT_FALSE(algorithm.arguments.empty());
    }
  }
}

bool IsNumber(const std::string& text, double& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc() && end == text.data() + text.size();
}

// The defaults of `algorithm`'s arguments are values its own rules accept.
void ExpectValidDefaults(const Algorithm& algorithm) {
  for (const Argument& argument : algorithm.arguments) {
    SCOPED_TRACE(algorithm.name + " --" + argument.name);
    if (argument.default_value.empty()) {
      continue;
    }
    double value = 0;
    switch (argument.type) {
      case ArgumentType::kInt:
      case ArgumentType::kFloat:
        ASSERT_TRUE(IsNumber(argument.default_value, value));
        if (argument.min) {
          EXPECT_TRUE(argument.exclusive_min ? value > *argument.min : value >= *argument.min);
        }
        if (argument.max) {
          EXPECT_TRUE(argument.exclusive_max ? value < *argument.max : value <= *argument.max);
        }
        break;
      case ArgumentType::kEnum:
        EXPECT_NE(std::ranges::find(argument.values, argument.default_value),
                  argument.values.end());
        break;
      case ArgumentType::kBool:
        EXPECT_TRUE(argument.default_value == "true" || argument.default_value == "false");
        break;
      case ArgumentType::kIntList:
        for (std::size_t start = 0; start <= argument.default_value.size();) {
          std::size_t comma = argument.default_value.find(',', start);
          comma = comma == std::string::npos ? argument.default_value.size() : comma;
          ASSERT_TRUE(IsNumber(argument.default_value.substr(start, comma - start), value));
          EXPECT_TRUE(!argument.min || value >= *argument.min);
          start = comma + 1;
        }
        break;
      case ArgumentType::kString:
      case ArgumentType::kPath:
        break;
    }
  }
  ASSERT_NE(algorithm.FindArgument("training_data_path"), nullptr);
  EXPECT_TRUE(algorithm.FindArgument("training_data_path")->required);
  // The splits of --preprocess, which the distributed XGBoost algorithm does not have.
  EXPECT_DOUBLE_EQ(algorithm.max_split_sum,
                   algorithm.FindArgument("preprocess") != nullptr ? 0.4 : 0.0);
}

TEST(BuiltinAlgorithms, EveryDefaultIsAValidValue) {
  int available = 0;
  for (const Algorithm& algorithm : BuiltinAlgorithms()) {
    if (algorithm.available) {
      ExpectValidDefaults(algorithm);
      ++available;
    }
  }
  EXPECT_EQ(available, 4);
}

// Its own data arguments, then the single-replica algorithm's XGBoost parameters (`extends`),
// without --preprocess and its splits; master and workers only.
TEST(BuiltinAlgorithms, DistributedXgboostTakesTheXgboostParametersWithoutPreprocessing) {
  const Algorithm* distributed = FindAlgorithm("gcr.io/cloud-ml-algos/xgboost_dist:latest");
  const Algorithm* single = FindAlgorithm("gcr.io/cloud-ml-algos/boosted_trees");
  ASSERT_NE(distributed, nullptr);
  ASSERT_NE(single, nullptr);
  EXPECT_EQ(distributed->module, "trainyard_algorithms.xgboost_dist");
  EXPECT_EQ(distributed->roles, (std::vector<std::string>{"master", "worker"}));
  EXPECT_EQ(distributed->max_replicas, 0);
  ASSERT_GE(distributed->arguments.size(), 5U);
  EXPECT_EQ(distributed->arguments[0].name, "training_data_path");
  EXPECT_EQ(distributed->arguments[2].name, "model_saving_period");
  for (const char* name : {"preprocess", "test_data_path", "validation_split", "test_split"}) {
    EXPECT_EQ(distributed->FindArgument(name), nullptr) << name;
  }
  for (const char* name : {"objective", "num_round", "max_depth", "eta", "tree_method"}) {
    ASSERT_NE(distributed->FindArgument(name), nullptr) << name;
    EXPECT_EQ(distributed->FindArgument(name)->default_value,
              single->FindArgument(name)->default_value);
    EXPECT_EQ(distributed->FindArgument(name)->tunable, single->FindArgument(name)->tunable);
  }
}

TEST(BuiltinAlgorithms, TheLinearLearnerNeedsItsModelType) {
  const Algorithm* linear = FindAlgorithm("gcr.io/cloud-ml-algos/linear_learner_cpu:latest");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->framework, "PYTORCH");
  EXPECT_EQ(linear->module, "trainyard_algorithms.linear_learner");
  ASSERT_NE(linear->FindArgument("model_type"), nullptr);
  EXPECT_TRUE(linear->FindArgument("model_type")->required);
  EXPECT_EQ(linear->FindArgument("model_type")->values,
            (std::vector<std::string>{"classification", "regression"}));
  EXPECT_EQ(FindAlgorithm("gcr.io/cloud-ml-algos/linear_learner_gpu"), linear);
}

}  // namespace
}  // namespace trainyard::algorithms
