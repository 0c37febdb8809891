// Output warping (tuning/output_warping.h): the normal quantile function, and the half-rank
// warping the GP suggester applies to a study's observations.
#include "tuning/output_warping.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::tuning {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

TEST(NormalQuantileTest, KnownValues) {
  struct Case {
    double p;
    double want;
  };
  const std::vector<Case> cases = {
      {0.5, 0.0},
      {0.975, 1.959963984540054},
      {0.025, -1.959963984540054},
      {0.8413447460685429, 1.0},    // Phi(1)
      {0.02275013194817921, -2.0},  // Phi(-2), on the tail branch
      {1e-10, -6.361340902404056},
      {1 - 1e-10, 6.361340889697421},  // 1 - 1e-10 as rounded to a double
      {0.3, -0.5244005127080407},
  };
  for (const Case& c : cases) {
    EXPECT_NEAR(NormalQuantile(c.p), c.want, 1e-12 * (1 + std::abs(c.want))) << "p = " << c.p;
  }
  EXPECT_EQ(NormalQuantile(0), -kInfinity);
  EXPECT_EQ(NormalQuantile(1), kInfinity);
  EXPECT_TRUE(std::isnan(NormalQuantile(-0.1)));
  EXPECT_TRUE(std::isnan(NormalQuantile(1.5)));
}

TEST(HalfRankWarpTest, Table) {
  struct Case {
    const char* name;
    std::vector<double> values;
    std::vector<double> want;
  };
  const std::vector<Case> cases = {
      {"too few to warp", {-100, 1}, {-100, 1}},
      {"all equal", {2, 2, 2, 2}, {2, 2, 2, 2}},
      // Median 1.15 (not a value), four distinct values below it, the better half's spread
      // s = sqrt(mean(0.05^2, 0.15^2, 0.25^2, 0.35^2)) = 0.229129; value k from the bottom has
      // its place at 1.15 + 2 s Phi^-1((k - 1/2) / 8): 0.447, 0.743, 0.926 and 1.078. The first
      // three are raised to their places; 1.1 is above its place and stays.
      {"even count",
       {-4, -3, -2, 1.1, 1.2, 1.3, 1.4, 1.5},
       {0.44697764803176, 0.7434583740776393, 0.9260145098158171, 1.1, 1.2, 1.3, 1.4, 1.5}},
      // Median 3 is a value: the denominator is 3 distinct values below it + 1/2, and the better
      // half {3, 4, 5, 6, 7} spreads s = sqrt((0 + 1 + 4 + 9 + 16) / 5) = sqrt(6) about it.
      // Value k from the bottom has its place at 3 + 2 s Phi^-1((k - 1/2) / 7): -4.18, -0.88 and
      // 1.21, so 1 is raised too; duplicates stay equal.
      {"median is a value, duplicates stay equal",
       {-50, 1, 3, 4, -100, 5, -100, 6, 7},
       {-0.8782212993171035, 1.2064524684985725, 3, 4, -4.17815029192496, 5, -4.17815029192496, 6,
        7}},
      // Bunched below the median (the better half spreads widely): every value is above its
      // place, and nothing moves.
      {"nothing to compress", {9.5, 9.7, 9.9, 10, 20, 30, 40}, {9.5, 9.7, 9.9, 10, 20, 30, 40}},
  };
  for (const Case& c : cases) {
    const std::vector<double> got = HalfRankWarp(c.values);
    ASSERT_EQ(got.size(), c.want.size()) << c.name;
    for (std::size_t i = 0; i < got.size(); ++i) {
      EXPECT_NEAR(got[i], c.want[i], 1e-9) << c.name << " [" << i << "]";
    }
  }
}

// What the warping is for: a catastrophic trial moves nothing but itself, and only to where a
// merely bad one would be.
TEST(HalfRankWarpTest, AnOutlierWeighsNoMoreThanItsRank) {
  const std::vector<double> ordinary = {-5, 0.5, 0.7, 0.1, 0.9, -1, 0.3};
  std::vector<double> catastrophic = ordinary;
  catastrophic[0] = -1e12;
  EXPECT_EQ(HalfRankWarp(ordinary), HalfRankWarp(catastrophic));
}

TEST(HalfRankWarpTest, KeepsOrderAndTheBetterHalf) {
  const std::vector<double> values = {3.5, -20, 7, 0.25, 1e6, -3, 2, 2, 9, -1e-3, 4};
  const std::vector<double> warped = HalfRankWarp(values);
  std::vector<double> sorted = values;
  std::ranges::sort(sorted);
  const double median = sorted[sorted.size() / 2];
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] >= median) {
      EXPECT_EQ(warped[i], values[i]) << i;
    } else {
      EXPECT_LT(warped[i], median) << i;
    }
    for (std::size_t j = 0; j < values.size(); ++j) {
      EXPECT_EQ(values[i] < values[j], warped[i] < warped[j]) << i << " " << j;
    }
  }
}

}  // namespace
}  // namespace trainyard::tuning
