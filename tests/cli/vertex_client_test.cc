// How a Vertex AI job named on the command line becomes its place (gcloud's resource argument).
#include "cli/client/vertex_client.h"

#include <optional>
#include <string>

#include <gtest/gtest.h>

namespace trainyard::cli {
namespace {

struct NameCase {
  std::string name;
  std::string text;
  VertexKind kind;
  std::optional<std::string> region;
  std::optional<VertexJobName> want;  // nullopt: refused
};

class VertexJobNameTest : public ::testing::TestWithParam<NameCase> {};

TEST_P(VertexJobNameTest, IsAnIdOrAFullName) {
  const NameCase& c = GetParam();
  auto name = ParseVertexJobName(c.text, c.kind, "p", c.region);
  if (!c.want) {
    ASSERT_FALSE(name.ok());
    EXPECT_EQ(name.status().code(), Code::kInvalidArgument);
    return;
  }
  ASSERT_TRUE(name.ok()) << name.status().ToString();
  EXPECT_EQ(*name, *c.want);
}

INSTANTIATE_TEST_SUITE_P(
    Names, VertexJobNameTest,
    ::testing::Values(
        NameCase{"IdWithRegion", "123", VertexKind::kCustomJob, "us-central1",
                 VertexJobName{"p", "us-central1", "123"}},
        NameCase{"FullNameWinsOverFlags", "projects/q/locations/europe-west4/customJobs/7",
                 VertexKind::kCustomJob, "us-central1", VertexJobName{"q", "europe-west4", "7"}},
        NameCase{"FullNameNeedsNoRegion",
                 "projects/q/locations/asia-east1/hyperparameterTuningJobs/9",
                 VertexKind::kHpTuningJob, std::nullopt, VertexJobName{"q", "asia-east1", "9"}},
        NameCase{"IdWithoutRegion", "123", VertexKind::kCustomJob, std::nullopt, std::nullopt},
        NameCase{"OtherCollection", "projects/q/locations/r/customJobs/7", VertexKind::kHpTuningJob,
                 "r", std::nullopt},
        NameCase{"Empty", "", VertexKind::kCustomJob, "r", std::nullopt}),
    [](const auto& tc) { return tc.param.name; });

TEST(VertexJobName, NamesItsCollection) {
  const VertexJobName name{"p", "us-central1", "123"};
  EXPECT_EQ(name.RelativeName(VertexKind::kCustomJob),
            "projects/p/locations/us-central1/customJobs/123");
  EXPECT_EQ(name.RelativeName(VertexKind::kHpTuningJob),
            "projects/p/locations/us-central1/hyperparameterTuningJobs/123");
}

}  // namespace
}  // namespace trainyard::cli
