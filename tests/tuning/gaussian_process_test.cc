#include "tuning/gaussian_process.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tuning/acquisition.h"
#include "tuning/gp_likelihood.h"
#include "tuning/halton.h"

namespace trainyard::tuning {
namespace {

using Function = std::function<double(const std::vector<double>&)>;

struct Sample {
  std::vector<double> points;  // row-major
  std::vector<double> values;
};

// `count` Halton points of [0, 1]^dims and `f` there.
Sample Draw(const Function& f, std::size_t dims, std::size_t count, std::uint64_t seed = 3) {
  Sample sample;
  for (std::size_t i = 0; i < count; ++i) {
    const std::vector<double> point = ScrambledHalton(i, dims, seed);
    sample.points.insert(sample.points.end(), point.begin(), point.end());
    sample.values.push_back(f(point));
  }
  return sample;
}

double Wave(const std::vector<double>& x) {
  return std::sin(3 * x[0]) + x[0] * std::cos(2 * x[1]);
}

TEST(GaussianProcess, InterpolatesASmoothFunction) {
  const Sample train = Draw(Wave, 2, 30);
  const GaussianProcess gp = GaussianProcess::Fit(train.points, 2, train.values);
  ASSERT_EQ(gp.size(), 30u);
  const Sample test = Draw(Wave, 2, 50, /*seed=*/99);
  const std::vector<GpPrediction> predictions = gp.PredictMany(test.points);
  for (std::size_t i = 0; i < test.values.size(); ++i) {
    EXPECT_NEAR(predictions[i].mean, test.values[i], 0.05) << "test point " << i;
    // The posterior is honest: errors are within a few standard deviations.
    EXPECT_LT(std::abs(predictions[i].mean - test.values[i]),
              4 * std::sqrt(predictions[i].variance) + 1e-3);
  }
}

TEST(GaussianProcess, GivesALongLengthScaleWhereTheFunctionIsConstant) {
  const Sample train = Draw([](const std::vector<double>& x) { return std::sin(6 * x[0]); }, 2, 25);
  const GaussianProcess gp = GaussianProcess::Fit(train.points, 2, train.values);
  const std::vector<double>& length = gp.hyperparameters().length_scales;
  EXPECT_LT(length[0], 0.6);
  EXPECT_GT(length[1], 1.5);
  EXPECT_GT(length[1], 4 * length[0]);
}

TEST(GaussianProcess, FittingRaisesTheMarginalLikelihood) {
  const Sample train = Draw(Wave, 2, 20);
  const GaussianProcess fitted = GaussianProcess::Fit(train.points, 2, train.values);
  for (const double length : {0.05, 0.3, 3.0}) {
    const GaussianProcess fixed = GaussianProcess::WithHyperparameters(
        train.points, 2, train.values,
        {.length_scales = {length, length}, .signal_variance = 1, .noise_variance = 1e-3});
    EXPECT_GT(fitted.log_marginal_likelihood(), fixed.log_marginal_likelihood()) << length;
  }
}

// A 1-D GP with known hyperparameters through y = 10 + 2x at x = 0, 0.1, 0.2, 0.3.
GaussianProcess Line() {
  const std::vector<double> x = {0, 0.1, 0.2, 0.3};
  const std::vector<double> y = {10, 10.2, 10.4, 10.6};
  return GaussianProcess::WithHyperparameters(
      x, 1, y, {.length_scales = {0.1}, .signal_variance = 1, .noise_variance = 1e-6});
}

TEST(GaussianProcess, IsCertainAtObservationsAndRevertsToThePriorFarAway) {
  const GaussianProcess gp = Line();
  // The worst output is 10, and the outputs' mean square distance from it 0.14.
  for (const double x : {0.0, 0.1, 0.2, 0.3}) {
    const GpPrediction at = gp.Predict(std::vector<double>{x});
    EXPECT_NEAR(at.mean, 10 + 2 * x, 1e-4);
    // At most the noise variance, 1e-6 of the squared scale 0.14.
    EXPECT_LE(at.variance, 1.4e-7);
  }
  const GpPrediction between = gp.Predict(std::vector<double>{0.55});
  const GpPrediction far = gp.Predict(std::vector<double>{1.0});
  EXPECT_GT(between.variance, 1e-4);
  EXPECT_GT(far.variance, between.variance);
  EXPECT_NEAR(far.mean, 10, 1e-3);
  EXPECT_NEAR(far.variance, 0.14, 1e-4);
}

// A noisy metric measured again at the same points (a study of few distinct points, or one run
// twice): the fit estimates the noise from the repeats instead of bending through every value, and
// the mean at a repeated point is the repeats' average, not one of them.
TEST(GaussianProcess, EstimatesTheNoiseOfRepeatedNoisyPoints) {
  constexpr double kNoiseSd = 0.1;
  const auto truth = [](double x) { return std::sin(3 * x); };
  std::mt19937_64 rng(1);
  std::normal_distribution<double> noise(0, kNoiseSd);
  std::vector<double> points;
  std::vector<double> values;
  for (int repeat = 0; repeat < 8; ++repeat) {
    for (const double x : {0.1, 0.3, 0.5, 0.7, 0.9}) {
      points.push_back(x);
      values.push_back(truth(x) + noise(rng));
    }
  }
  const GaussianProcess gp = GaussianProcess::Fit(points, 1, values);
  // The noise variance is in units of the squared scale: the outputs' root mean square distance
  // from the worst of them.
  const double worst = *std::ranges::min_element(values);
  double square_sum = 0;
  for (const double v : values) {
    square_sum += (v - worst) * (v - worst);
  }
  const double fitted_noise =
      gp.hyperparameters().noise_variance * square_sum / static_cast<double>(values.size());
  // The repeats' own pooled variance about each point's average (35 degrees of freedom) is what
  // the data say of the noise.
  double pooled = 0;
  for (const double x : {0.1, 0.3, 0.5, 0.7, 0.9}) {
    double average = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      average += points[i] == x ? values[i] / 8 : 0;
    }
    for (std::size_t i = 0; i < values.size(); ++i) {
      pooled += points[i] == x ? (values[i] - average) * (values[i] - average) / 35 : 0;
    }
  }
  EXPECT_NEAR(fitted_noise, pooled, 0.2 * pooled);
  EXPECT_NEAR(fitted_noise, kNoiseSd * kNoiseSd, 0.5 * kNoiseSd * kNoiseSd);
  for (const double x : {0.1, 0.3, 0.5, 0.7, 0.9}) {
    double average = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      average += points[i] == x ? values[i] / 8 : 0;
    }
    const GpPrediction at = gp.Predict(std::vector<double>{x});
    // The average of 8 has a standard error of 0.035; the mean sits between it and the truth.
    EXPECT_NEAR(at.mean, average, 0.05) << "x = " << x;
    EXPECT_NEAR(at.mean, truth(x), 0.1) << "x = " << x;
    EXPECT_GT(at.variance, 0.1 * kNoiseSd * kNoiseSd / 8) << "x = " << x;
  }
}

TEST(GaussianProcess, BelievingAPointKeepsTheMeanAndRemovesItsVariance) {
  GaussianProcess gp = Line();
  const std::vector<double> x = {0.6};
  const GpPrediction before = gp.Predict(x);
  const GpPrediction near_before = gp.Predict(std::vector<double>{0.62});
  EXPECT_DOUBLE_EQ(gp.Believe(x), before.mean);
  EXPECT_EQ(gp.size(), 5u);
  const GpPrediction after = gp.Predict(x);
  EXPECT_NEAR(after.mean, before.mean, 1e-9);
  EXPECT_LT(after.variance, 1e-6 * before.variance);
  const GpPrediction near_after = gp.Predict(std::vector<double>{0.62});
  EXPECT_NEAR(near_after.mean, near_before.mean, 1e-9);
  EXPECT_LT(near_after.variance, 0.5 * near_before.variance);
  EXPECT_NEAR(gp.Predict(std::vector<double>{0.3}).mean, 10.6, 1e-4);
  // A second belief on top of the first keeps the factor sound.
  EXPECT_NEAR(gp.Believe(x), before.mean, 1e-9);
  EXPECT_TRUE(std::isfinite(gp.Predict(std::vector<double>{0.61}).variance));
}

TEST(GaussianProcess, PredictManyAgreesWithPredict) {
  const Sample train = Draw(Wave, 2, 15);
  const GaussianProcess gp = GaussianProcess::Fit(train.points, 2, train.values);
  const Sample test = Draw(Wave, 2, 10, 5);
  const std::vector<GpPrediction> many = gp.PredictMany(test.points);
  for (std::size_t i = 0; i < 10; ++i) {
    const GpPrediction one = gp.Predict(std::span<const double>(test.points).subspan(2 * i, 2));
    EXPECT_NEAR(one.mean, many[i].mean, 1e-12);
    EXPECT_NEAR(one.variance, many[i].variance, 1e-12);
  }
}

struct PointCase {
  std::string name;
  std::vector<double> point;
};

class PredictGradientTest : public ::testing::TestWithParam<PointCase> {};

TEST_P(PredictGradientTest, MatchesFiniteDifferences) {
  const Sample train = Draw(Wave, 2, 12);
  const GaussianProcess gp = GaussianProcess::WithHyperparameters(
      train.points, 2, train.values,
      {.length_scales = {0.3, 0.7}, .signal_variance = 1.5, .noise_variance = 1e-4});
  std::vector<double> d_mean(2);
  std::vector<double> d_variance(2);
  gp.Predict(GetParam().point, d_mean, d_variance);
  constexpr double kStep = 1e-6;
  for (std::size_t i = 0; i < 2; ++i) {
    std::vector<double> up = GetParam().point;
    std::vector<double> down = GetParam().point;
    up[i] += kStep;
    down[i] -= kStep;
    const GpPrediction a = gp.Predict(up);
    const GpPrediction b = gp.Predict(down);
    EXPECT_NEAR(d_mean[i], (a.mean - b.mean) / (2 * kStep), 1e-5) << "coordinate " << i;
    EXPECT_NEAR(d_variance[i], (a.variance - b.variance) / (2 * kStep), 1e-5) << "coordinate " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, PredictGradientTest,
                         ::testing::Values(PointCase{"Centre", {0.5, 0.5}},
                                           PointCase{"Corner", {0.02, 0.97}},
                                           PointCase{"Edge", {0.8, 0.01}}),
                         [](const auto& tc) { return tc.param.name; });

class LikelihoodGradientTest : public ::testing::TestWithParam<PointCase> {};

TEST_P(LikelihoodGradientTest, MatchesFiniteDifferences) {
  const Sample train = Draw(Wave, 2, 15);
  const Eigen::MatrixXd x =
      Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
          train.points.data(), 15, 2);
  Eigen::VectorXd y = Eigen::Map<const Eigen::VectorXd>(train.values.data(), 15);
  y = (y.array() - y.mean()).matrix();
  // The case's point is the two log length scales; then log signal and log noise variances.
  Eigen::VectorXd params(4);
  params << GetParam().point[0], GetParam().point[1], 0.3, std::log(1e-3);
  Eigen::VectorXd gradient;
  GpLogMarginalLikelihood(x, y, params, &gradient);
  constexpr double kStep = 1e-6;
  for (Eigen::Index i = 0; i < 4; ++i) {
    Eigen::VectorXd up = params;
    Eigen::VectorXd down = params;
    up[i] += kStep;
    down[i] -= kStep;
    const double numeric = (GpLogMarginalLikelihood(x, y, up, nullptr) -
                            GpLogMarginalLikelihood(x, y, down, nullptr)) /
                           (2 * kStep);
    EXPECT_NEAR(gradient[i], numeric, 1e-4 * (1 + std::abs(numeric))) << "parameter " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, LikelihoodGradientTest,
                         ::testing::Values(PointCase{"Short", {std::log(0.1), std::log(0.2)}},
                                           PointCase{"Mixed", {std::log(0.5), std::log(3.0)}}),
                         [](const auto& tc) { return tc.param.name; });

// ---- Expected improvement ----

struct EiCase {
  std::string name;
  double mean;
  double stddev;
  double best;
  double expected;
};

class ExpectedImprovementTest : public ::testing::TestWithParam<EiCase> {};

TEST_P(ExpectedImprovementTest, MatchesTheClosedForm) {
  const EiCase& c = GetParam();
  EXPECT_NEAR(ExpectedImprovement(c.mean, c.stddev, c.best), c.expected, 1e-6);
  if (c.expected > 0) {
    EXPECT_NEAR(LogExpectedImprovement(c.mean, c.stddev, c.best).value, std::log(c.expected), 1e-6);
  }
}

INSTANTIATE_TEST_SUITE_P(
    Table, ExpectedImprovementTest,
    ::testing::Values(EiCase{"AtTheIncumbent", 0, 1, 0, 0.3989423},  // phi(0)
                      EiCase{"OneAbove", 1, 1, 0, 1.0833155},        // Phi(1) + phi(1)
                      EiCase{"OneBelow", -1, 1, 0, 0.0833155},       // phi(1) - Phi(-1)
                      EiCase{"ScalesWithStddev", 4, 2, 2, 2 * 1.0833155},
                      EiCase{"CertainGain", 3, 0, 1, 2}, EiCase{"CertainLoss", 0, 0, 1, 0}),
    [](const auto& tc) { return tc.param.name; });

// log h(z), h(z) = z Phi(z) + phi(z), in long double: exact enough far below zero.
double ReferenceLogH(double z) {
  const long double zl = z;
  const long double phi = std::exp(-zl * zl / 2) / std::sqrt(2 * 3.14159265358979323846L);
  const long double cdf = std::erfc(-zl / std::sqrt(2.0L)) / 2;
  return static_cast<double>(std::log(zl * cdf + phi));
}

class LogExpectedImprovementTest : public ::testing::TestWithParam<double> {};

TEST_P(LogExpectedImprovementTest, IsAccurateAndDifferentiable) {
  const double z = GetParam();
  const double stddev = 0.5;
  const double best = 1.0;
  const double mean = best + z * stddev;
  const LogImprovement ei = LogExpectedImprovement(mean, stddev, best);
  EXPECT_NEAR(ei.value, std::log(stddev) + ReferenceLogH(z), 1e-9 * (1 + std::abs(ei.value)));
  constexpr double kStep = 1e-6;
  const double d_mean = (LogExpectedImprovement(mean + kStep, stddev, best).value -
                         LogExpectedImprovement(mean - kStep, stddev, best).value) /
                        (2 * kStep);
  const double d_stddev = (LogExpectedImprovement(mean, stddev + kStep, best).value -
                           LogExpectedImprovement(mean, stddev - kStep, best).value) /
                          (2 * kStep);
  EXPECT_NEAR(ei.d_mean, d_mean, 1e-5 * (1 + std::abs(d_mean)));
  EXPECT_NEAR(ei.d_stddev, d_stddev, 1e-5 * (1 + std::abs(d_stddev)));
}

INSTANTIATE_TEST_SUITE_P(Table, LogExpectedImprovementTest,
                         ::testing::Values(-40.0, -25.5, -24.5, -20.0, -10.0, -3.0, 0.0, 2.5),
                         [](const auto& tc) {
                           const int tenths = static_cast<int>(std::lround(tc.param * 10));
                           return (tenths < 0 ? "Minus" : "Plus") +
                                  std::to_string(std::abs(tenths));
                         });

TEST(LogExpectedImprovement, IncreasesWithMeanWhereEiUnderflows) {
  double previous = -std::numeric_limits<double>::infinity();
  for (double z = -60; z <= 0; z += 0.5) {
    const double value = LogExpectedImprovement(z, 1, 0).value;
    EXPECT_TRUE(std::isfinite(value)) << z;
    EXPECT_GT(value, previous) << z;
    previous = value;
  }
  EXPECT_EQ(ExpectedImprovement(-60, 1, 0), 0);  // underflows; the log does not
}

}  // namespace
}  // namespace trainyard::tuning
