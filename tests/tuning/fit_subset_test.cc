// The bounded hyperparameter fit: which observations it uses (suggest_support.h's FitSubset) and
// a GP fitted on a subset but conditioned on every point (gaussian_process.h).
#include <cmath>
#include <cstddef>
#include <vector>

#include <gtest/gtest.h>

#include "tuning/gaussian_process.h"
#include "tuning/halton.h"
#include "tuning/suggest_support.h"

namespace trainyard::tuning {
namespace {

TEST(FitSubsetTest, BestHalfAndTheRestSpreadInStudyOrder) {
  struct Case {
    std::vector<double> values;
    std::size_t limit;
    std::vector<std::size_t> want;
  };
  const std::vector<Case> cases = {
      // No more than the limit: all of them.
      {{3, 1, 2}, 3, {0, 1, 2}},
      {{3, 1, 2}, 5, {0, 1, 2}},
      // Limit 2: the best one (value 9 at index 3), and the first of the others in study order.
      {{1, 2, 3, 9, 4}, 2, {0, 3}},
      // Limit 4: the best two (indices 5 and 1), then the 1st and 4th of the other six (indices
      // 0, 2, 3, 4, 6, 7): 0 and 4.
      {{0, 8, 1, 2, 3, 9, 4, 5}, 4, {0, 1, 4, 5}},
      // Ties keep study order among the best.
      {{5, 5, 5, 1, 1, 1}, 2, {0, 1}},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(FitSubset(c.values, c.limit), c.want) << c.values.size() << " limit " << c.limit;
  }
}

struct SubsetSample {
  std::vector<double> points;
  std::vector<double> values;
};

SubsetSample WaveSample(std::size_t count) {
  SubsetSample sample;
  for (std::size_t i = 0; i < count; ++i) {
    const std::vector<double> x = ScrambledHalton(i, 2, 5);
    sample.points.insert(sample.points.end(), x.begin(), x.end());
    sample.values.push_back(10 + 5 * (std::sin(3 * x[0]) + x[0] * std::cos(2 * x[1])));
  }
  return sample;
}

TEST(FitSubsetTest, AllIndicesFitAsWithoutASubset) {
  const SubsetSample s = WaveSample(20);
  std::vector<std::size_t> all(20);
  for (std::size_t i = 0; i < all.size(); ++i) {
    all[i] = i;
  }
  const GaussianProcess plain = GaussianProcess::Fit(s.points, 2, s.values);
  const GaussianProcess subset = GaussianProcess::Fit(s.points, 2, s.values, all);
  EXPECT_EQ(plain.hyperparameters().length_scales, subset.hyperparameters().length_scales);
  EXPECT_DOUBLE_EQ(plain.hyperparameters().signal_variance,
                   subset.hyperparameters().signal_variance);
}

TEST(FitSubsetTest, FittedOnASubsetConditionedOnEveryPoint) {
  const SubsetSample s = WaveSample(60);
  const GaussianProcess gp = GaussianProcess::Fit(s.points, 2, s.values, FitSubset(s.values, 20));
  EXPECT_EQ(gp.size(), 60U);
  // Interpolates the points left out of the fit too (the noise is fitted small).
  for (std::size_t i = 0; i < s.values.size(); ++i) {
    const GpPrediction p = gp.Predict(std::span<const double>(s.points.data() + 2 * i, 2));
    EXPECT_NEAR(p.mean, s.values[i], 0.05) << i;
  }
  // And predicts well between them.
  const std::vector<double> x = {0.37, 0.61};
  EXPECT_NEAR(gp.Predict(x).mean, 10 + 5 * (std::sin(3 * x[0]) + x[0] * std::cos(2 * x[1])), 0.05);
}

}  // namespace
}  // namespace trainyard::tuning
