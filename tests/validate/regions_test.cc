#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "validate/rule_case.h"
#include "validate/validate.h"

namespace trainyard::validate::testing {
namespace {

using model::AcceleratorConfig;
using model::Job;

// GPU seed: master T4, parameter servers K80, workers P100, in us-central1.
void SeedZoneMix(Job& job) {
  Master(job).accelerator_config = AcceleratorConfig{4, "NVIDIA_TESLA_T4"};
  In(job).worker_type = "n1-standard-8";
  Worker(job).accelerator_config = AcceleratorConfig{1, "NVIDIA_TESLA_P100"};
  In(job).parameter_server_type = "n1-standard-8";
  ParameterServer(job).accelerator_config = AcceleratorConfig{1, "NVIDIA_TESLA_K80"};
}

class RegionRules : public RuleTest {};
TEST_P(RegionRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Regions, RegionRules,
    ::testing::Values(
        // docs/reference/ai-platform-training.md §2.8 #3: region present and known.
        RuleCase{"Missing", RuntimeJob, [](Job& j) { In(j).region.clear(); },
                 "trainingInput.region"},
        RuleCase{"Unknown", RuntimeJob, [](Job& j) { In(j).region = "mars-east1"; },
                 "trainingInput.region"},
        RuleCase{"CpuOnlyRegionForCpuJob", RuntimeJob,
                 [](Job& j) { In(j).region = "europe-north1"; }, ""},
        // GPU seed: the region must offer the job's GPUs.
        RuleCase{"T4WhereOnlyK80AndP100", GpuJob, [](Job& j) { In(j).region = "europe-west1"; },
                 "trainingInput.region"},
        RuleCase{"GpuInCpuOnlyRegion", GpuJob, [](Job& j) { In(j).region = "europe-north1"; },
                 "trainingInput.region"},
        RuleCase{"LegacyK80WhereNone", LegacyJob, [](Job& j) { In(j).region = "europe-west2"; },
                 "trainingInput.region"},
        RuleCase{"LegacyK80InEuropeWest1", LegacyJob, [](Job& j) { In(j).region = "europe-west1"; },
                 ""},
        // GPU seed: all GPU types in one zone of the region.
        RuleCase{"SeedMixRefusedInUsCentral1", GpuJob, SeedZoneMix, "trainingInput.region"},
        RuleCase{"SeedMixAcceptedInUsEast1", GpuJob,
                 [](Job& j) {
                   SeedZoneMix(j);
                   In(j).region = "us-east1";
                 },
                 ""},
        RuleCase{"T4AndV100ShareAZone", GpuJob,
                 [](Job& j) {
                   In(j).worker_type = "n1-standard-8";
                   Worker(j).accelerator_config = AcceleratorConfig{1, "NVIDIA_TESLA_V100"};
                 },
                 ""},
        // docs/reference/ai-platform-training.md §5.3: TPUs stay out of the same-zone rule (T4 and
        // TPU_V2 share no zone).
        RuleCase{"TpuExcludedFromSameZone", TpuJob,
                 [](Job& j) {
                   Master(j).accelerator_config = AcceleratorConfig{4, "NVIDIA_TESLA_T4"};
                 },
                 ""},
        // TPU seed: TPU regions are us-central1 and europe-west4.
        RuleCase{"TpuInUsEast1", TpuJob, [](Job& j) { In(j).region = "us-east1"; },
                 "trainingInput.region"},
        RuleCase{"TpuV3InEuropeWest4", TpuJob,
                 [](Job& j) {
                   In(j).region = "europe-west4";
                   Worker(j).accelerator_config->type = "TPU_V3";
                 },
                 ""}),
    CaseName);

TEST(RegionMessages, SameZoneRuleNamesTheGpusAndTheZones) {
  Job job = GpuJob();
  SeedZoneMix(job);
  const std::vector<FieldViolation> violations = Validate(job, catalog::Catalog::Builtin());
  ASSERT_EQ(violations.size(), 1u) << Describe(violations);
  const std::string& message = violations[0].description;
  EXPECT_NE(message.find("no zone of us-central1 offers NVIDIA_TESLA_T4, NVIDIA_TESLA_P100 and "
                         "NVIDIA_TESLA_K80 together"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("us-central1-a (NVIDIA_TESLA_T4, NVIDIA_TESLA_K80)"), std::string::npos)
      << message;
  EXPECT_NE(message.find("us-central1-f (NVIDIA_TESLA_T4, NVIDIA_TESLA_P100)"), std::string::npos)
      << message;
}

TEST(RegionMessages, MissingTpuNamesTheTpuRegions) {
  Job job = TpuJob();
  In(job).region = "us-east1";
  const std::vector<FieldViolation> violations = Validate(job, catalog::Catalog::Builtin());
  ASSERT_EQ(violations.size(), 1u) << Describe(violations);
  EXPECT_EQ(violations[0].description,
            "us-east1 offers no TPU_V2 (used by the worker); regions offering it: us-central1, "
            "europe-west4");
}

}  // namespace
}  // namespace trainyard::validate::testing
