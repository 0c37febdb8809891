// vertex::JobIdFromDraw and vertex::JobIdScheme (vertex/custom_job_mapping.h): the 19-digit ids
// the server gives Vertex jobs; and vertex::WithVertexPaths, a submit's violations in the
// request's paths.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "validate/validate.h"
#include "vertex/custom_job_mapping.h"

namespace trainyard::vertex {
namespace {

struct DrawCase {
  std::uint64_t draw;
  std::string want;
};

TEST(JobIdFromDrawTest, NineteenDigitsBelowTwoToThe63) {
  constexpr std::uint64_t kBase = 1'000'000'000'000'000'000ULL;
  const std::vector<DrawCase> cases = {
      {0, "1000000000000000000"},
      {1, "1000000000000000001"},
      {8 * kBase - 1, "8999999999999999999"},
      {8 * kBase, "1000000000000000000"},  // the draw is taken modulo 8 * 10^18
      {std::numeric_limits<std::uint64_t>::max(), "3446744073709551615"},
  };
  for (const DrawCase& c : cases) {
    const std::string id = JobIdFromDraw(c.draw);
    EXPECT_EQ(id, c.want) << c.draw;
    EXPECT_TRUE(validate::IsVertexJobId(id)) << id;
  }
}

TEST(JobIdSchemeTest, ADrawPerAttemptFiveTimes) {
  const model::JobIdScheme scheme = JobIdScheme();
  EXPECT_TRUE(scheme.random);
  EXPECT_EQ(scheme.max_attempts, 5);
  EXPECT_EQ(scheme.candidate(0, 42), JobIdFromDraw(42));
  EXPECT_EQ(scheme.candidate(3, 42), JobIdFromDraw(42));  // only the draw counts
}

TEST(WithVertexPathsTest, MovesViolationsToTheRequestsPaths) {
  const Status refused = Status::InvalidArgument(std::vector<FieldViolation>{
      {"trainingInput.masterType", "unknown machine"}, {"labels.x", "bad label"}});
  const Status moved = WithVertexPaths(refused, "jobSpec", {});
  ASSERT_EQ(moved.code(), Code::kInvalidArgument);
  ASSERT_EQ(moved.violations().size(), 2U);
  EXPECT_EQ(moved.violations()[0].field, "jobSpec.workerPoolSpecs[0].machineSpec.machineType");
  EXPECT_EQ(moved.violations()[0].description, "unknown machine");
  EXPECT_EQ(moved.violations()[1].field, "labels.x");

  const Status other = Status::AlreadyExists("taken");
  EXPECT_EQ(WithVertexPaths(other, "jobSpec", {}).message(), "taken");
}

}  // namespace
}  // namespace trainyard::vertex
