#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "validate/rule_case.h"
#include "validate/validate.h"

namespace trainyard::validate::testing {
namespace {

using model::Job;

constexpr const char* kType = "trainingInput.masterConfig.acceleratorConfig.type";
constexpr const char* kCount = "trainingInput.masterConfig.acceleratorConfig.count";
constexpr const char* kConfig = "trainingInput.masterConfig.acceleratorConfig";

// A CUSTOM job whose only replica is a master of `machine` with `count` x `gpu`.
struct GpuCase {
  std::string name;
  std::string machine;
  std::string gpu;
  std::int64_t count;
  std::string field;  // the offending leaf; "" when valid

  friend void PrintTo(const GpuCase& c, std::ostream* os) { *os << c.name; }
};

class GpuCountTest : public ::testing::TestWithParam<GpuCase> {};

TEST_P(GpuCountTest, FollowsTheSeedTable) {
  const GpuCase& c = GetParam();
  Job job = RuntimeJob();
  SingleMaster(job, c.machine, c.gpu, c.count);
  const std::vector<FieldViolation> violations = Validate(job, catalog::Catalog::Builtin());
  const std::vector<std::string> expected =
      c.field.empty() ? std::vector<std::string>() : std::vector<std::string>{c.field};
  EXPECT_EQ(Fields(violations), expected) << "violations:" << Describe(violations);
}

// GPU seed: the table of allowed counts, the vCPU/memory supply per GPU and the 8 x K80 and
// 4 x P100 caps (docs/reference/ai-platform-training.md §4.3/§4.4).
INSTANTIATE_TEST_SUITE_P(
    SeedTable, GpuCountTest,
    ::testing::Values(
        GpuCase{"TwoT4", "n1-standard-8", "NVIDIA_TESLA_T4", 2, ""},
        GpuCase{"ThreeT4", "n1-standard-8", "NVIDIA_TESLA_T4", 3, kCount},
        GpuCase{"FiveT4", "n1-standard-8", "NVIDIA_TESLA_T4", 5, kCount},
        GpuCase{"OneT4OnHighcpu32", "n1-highcpu-32", "NVIDIA_TESLA_T4", 1, kCount},
        GpuCase{"EightK80OnStandard4", "n1-standard-4", "NVIDIA_TESLA_K80", 8, ""},
        GpuCase{"OneK80OnStandard16", "n1-standard-16", "NVIDIA_TESLA_K80", 1, kCount},
        // The seed's example: n1-standard-32 needs at least 4 V100.
        GpuCase{"TwoV100OnStandard32", "n1-standard-32", "NVIDIA_TESLA_V100", 2, kCount},
        GpuCase{"FourV100OnStandard32", "n1-standard-32", "NVIDIA_TESLA_V100", 4, ""},
        GpuCase{"EightV100OnHighmem96", "n1-highmem-96", "NVIDIA_TESLA_V100", 8, ""},
        GpuCase{"FourV100OnHighmem96", "n1-highmem-96", "NVIDIA_TESLA_V100", 4, kCount},
        // 8 x K80: at most 208 GB. n1-highmem-32 has exactly 208 GB.
        GpuCase{"EightK80On208Gb", "n1-highmem-32", "NVIDIA_TESLA_K80", 8, ""},
        GpuCase{"EightK80OnHighmem64", "n1-highmem-64", "NVIDIA_TESLA_K80", 8, kType},
        GpuCase{"EightK80OnStandard64", "n1-standard-64", "NVIDIA_TESLA_K80", 8, kType},
        // 4 x P100: at most 64 vCPUs. n1-highcpu-64 has exactly 64.
        GpuCase{"FourP100On64Vcpus", "n1-highcpu-64", "NVIDIA_TESLA_P100", 4, ""},
        GpuCase{"FourP100OnHighcpu96", "n1-highcpu-96", "NVIDIA_TESLA_P100", 4, kType},
        GpuCase{"FourP4OnHighcpu96", "n1-highcpu-96", "NVIDIA_TESLA_P4", 4, ""},
        GpuCase{"EightP4", "n1-standard-8", "NVIDIA_TESLA_P4", 8, kCount},
        // A100 only through the a2 types, with their built-in count.
        GpuCase{"A100OnA2", "a2-highgpu-1g", "NVIDIA_TESLA_A100", 1, ""},
        GpuCase{"SixteenA100OnMegagpu", "a2-megagpu-16g", "NVIDIA_TESLA_A100", 16, ""},
        GpuCase{"TwoA100OnA2With1", "a2-highgpu-1g", "NVIDIA_TESLA_A100", 2, kCount},
        GpuCase{"A100OnN1", "n1-standard-8", "NVIDIA_TESLA_A100", 1, kType},
        GpuCase{"T4OnA2", "a2-highgpu-1g", "NVIDIA_TESLA_T4", 1, kType},
        // Legacy types carry their GPUs built in and take no acceleratorConfig.
        GpuCase{"K80OnLegacyGpuType", "complex_model_m_gpu", "NVIDIA_TESLA_K80", 4, kConfig},
        GpuCase{"T4OnLegacyType", "large_model", "NVIDIA_TESLA_T4", 1, kConfig},
        // The type names an accelerator, the count is positive.
        GpuCase{"NoAccelerator", "n1-standard-8", "", 0, ""},
        GpuCase{"UnspecifiedType", "n1-standard-8", "ACCELERATOR_TYPE_UNSPECIFIED", 1, kType},
        GpuCase{"UnknownType", "n1-standard-8", "NVIDIA_TESLA_K40", 1, kType},
        GpuCase{"TpuPodIsRefused", "n1-standard-8", "TPU_V2_POD", 8, kType},
        GpuCase{"ZeroCount", "n1-standard-8", "NVIDIA_TESLA_T4", 0, kCount},
        GpuCase{"NegativeCount", "n1-standard-8", "NVIDIA_TESLA_T4", -1, kCount}),
    [](const auto& tc) { return tc.param.name; });

std::string MasterMessage(const std::string& machine, const std::string& gpu, std::int64_t count) {
  Job job = RuntimeJob();
  SingleMaster(job, machine, gpu, count);
  const std::vector<FieldViolation> violations = Validate(job, catalog::Catalog::Builtin());
  return violations.size() == 1 ? violations[0].description : Describe(violations);
}

TEST(AcceleratorMessages, NameTheCountAndTheAllowedCounts) {
  EXPECT_EQ(MasterMessage("n1-standard-8", "NVIDIA_TESLA_T4", 5),
            "5 x NVIDIA_TESLA_T4 is not offered on n1-standard-8; allowed counts: 1, 2, 4");
}

TEST(AcceleratorMessages, ExplainTheVcpuAndMemorySupply) {
  EXPECT_EQ(MasterMessage("n1-standard-32", "NVIDIA_TESLA_V100", 2),
            "n1-standard-32 needs at least 4 NVIDIA_TESLA_V100 (each supplies up to 12 vCPUs and "
            "78 GB); allowed counts: 4, 8");
}

TEST(AcceleratorMessages, ExplainTheEightK80MemoryCap) {
  const std::string message = MasterMessage("n1-highmem-64", "NVIDIA_TESLA_K80", 8);
  EXPECT_NE(message.find("8 x NVIDIA_TESLA_K80 supports at most 64 vCPUs and 208 GB"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("n1-highmem-64 has 64 vCPUs and 416 GB"), std::string::npos) << message;
}

TEST(AcceleratorMessages, ListTheA2TypesForA100) {
  const std::string message = MasterMessage("n1-standard-8", "NVIDIA_TESLA_A100", 1);
  EXPECT_NE(message.find("a2-highgpu-1g (1)"), std::string::npos) << message;
  EXPECT_NE(message.find("a2-megagpu-16g (16)"), std::string::npos) << message;
}

TEST(AcceleratorMessages, PointLegacyGpuTypesToTheirComputeEngineEquivalent) {
  const std::string message = MasterMessage("complex_model_m_gpu", "NVIDIA_TESLA_K80", 4);
  EXPECT_NE(message.find("4 x NVIDIA_TESLA_K80 built in"), std::string::npos) << message;
  EXPECT_NE(message.find("n1-standard-16"), std::string::npos) << message;
}

class AcceleratorRoleRules : public RuleTest {};
TEST_P(AcceleratorRoleRules, ReportExactlyTheOffendingFields) {
  ExpectRuleCase(GetParam());
}

INSTANTIATE_TEST_SUITE_P(
    Roles, AcceleratorRoleRules,
    ::testing::Values(
        RuleCase{"WorkerCountsAreCheckedToo", GpuJob,
                 [](Job& j) { Worker(j).accelerator_config->count = 3; },
                 "trainingInput.workerConfig.acceleratorConfig.count"},
        RuleCase{"ParameterServerWithGpus", GpuJob,
                 [](Job& j) {
                   ParameterServer(j).accelerator_config =
                       model::AcceleratorConfig{2, "NVIDIA_TESLA_T4"};
                 },
                 ""},
        // docs/reference/ai-platform-training.md §2.2: accelerators attach to a machine type.
        RuleCase{"AcceleratorWithoutWorkerType", TpuJob,
                 [](Job& j) {
                   In(j).worker_type.clear();
                   In(j).worker_count = 0;
                 },
                 "trainingInput.workerConfig.acceleratorConfig"},
        RuleCase{"GpuOnTpuWorker", TpuJob,
                 [](Job& j) {
                   Worker(j).accelerator_config = model::AcceleratorConfig{1, "NVIDIA_TESLA_T4"};
                 },
                 "trainingInput.workerConfig.acceleratorConfig.type"},
        // TPU seed: TPUs go on a cloud_tpu worker only.
        RuleCase{"TpuOnMaster", TpuJob,
                 [](Job& j) {
                   Master(j).accelerator_config = model::AcceleratorConfig{8, "TPU_V2"};
                 },
                 "trainingInput.masterConfig.acceleratorConfig.type"},
        RuleCase{"TpuOnComputeEngineWorker", GpuJob,
                 [](Job& j) {
                   In(j).worker_count = 1;
                   Worker(j).accelerator_config = model::AcceleratorConfig{8, "TPU_V2"};
                   In(j).parameter_server_count = 0;
                   In(j).parameter_server_type.clear();
                   In(j).runtime_version = "2.2";
                 },
                 "trainingInput.workerConfig.acceleratorConfig.type"}),
    CaseName);

}  // namespace
}  // namespace trainyard::validate::testing
