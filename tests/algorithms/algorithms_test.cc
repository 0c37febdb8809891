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

TEST(BuiltinAlgorithms, OnlyTheSingleReplicaXgboostRunsHere) {
  for (const Algorithm& algorithm : BuiltinAlgorithms()) {
    EXPECT_EQ(algorithm.available, algorithm.name == "xgboost") << algorithm.name;
    EXPECT_FALSE(algorithm.display_name.empty());
    EXPECT_FALSE(algorithm.images.empty());
    if (algorithm.available) {
      EXPECT_EQ(algorithm.python, "/usr/bin/python3");  // Debian's, with python3-xgboost
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

TEST(BuiltinAlgorithms, EveryDefaultIsAValidValue) {
  const Algorithm* xgboost = FindAlgorithm("gcr.io/cloud-ml-algos/boosted_trees");
  ASSERT_NE(xgboost, nullptr);
  for (const Argument& argument : xgboost->arguments) {
    SCOPED_TRACE(argument.name);
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
      case ArgumentType::kString:
      case ArgumentType::kPath:
        break;
    }
  }
  EXPECT_NE(xgboost->FindArgument("training_data_path"), nullptr);
  EXPECT_TRUE(xgboost->FindArgument("training_data_path")->required);
  EXPECT_DOUBLE_EQ(xgboost->max_split_sum, 0.4);
}

}  // namespace
}  // namespace trainyard::algorithms
