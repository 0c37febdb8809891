#include "tuning/halton.h"

#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::tuning {
namespace {

struct StrataCase {
  std::string name;
  std::size_t coordinate;  // of a 3-dimensional sequence: bases 2, 3, 5
  std::size_t count;       // a power of the coordinate's base
};

class HaltonStrataTest : public ::testing::TestWithParam<StrataCase> {};

// The first base^k points put exactly one coordinate value in each interval of width base^-k.
TEST_P(HaltonStrataTest, PutsOnePointInEachStratum) {
  for (const std::uint64_t seed : {1, 2, 3}) {
    std::set<std::size_t> strata;
    for (std::size_t i = 0; i < GetParam().count; ++i) {
      const double u = ScrambledHalton(i, 3, seed)[GetParam().coordinate];
      ASSERT_GE(u, 0.0);
      ASSERT_LT(u, 1.0);
      strata.insert(static_cast<std::size_t>(u * static_cast<double>(GetParam().count)));
    }
    EXPECT_EQ(strata.size(), GetParam().count) << "seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Table, HaltonStrataTest,
                         ::testing::Values(StrataCase{"Base2", 0, 16}, StrataCase{"Base3", 1, 27},
                                           StrataCase{"Base5", 2, 25}),
                         [](const auto& tc) { return tc.param.name; });

TEST(ScrambledHalton, IsDeterministicPerSeed) {
  EXPECT_EQ(ScrambledHalton(7, 4, 11), ScrambledHalton(7, 4, 11));
  EXPECT_NE(ScrambledHalton(7, 4, 11), ScrambledHalton(7, 4, 12));
  EXPECT_NE(ScrambledHalton(7, 4, 11), ScrambledHalton(8, 4, 11));
}

TEST(ScrambledHalton, HandlesManyCoordinates) {
  const std::vector<double> point = ScrambledHalton(3, 500, 1);  // bases up to 3571
  ASSERT_EQ(point.size(), 500u);
  for (const double u : point) {
    EXPECT_GE(u, 0.0);
    EXPECT_LT(u, 1.0);
  }
}

}  // namespace
}  // namespace trainyard::tuning
