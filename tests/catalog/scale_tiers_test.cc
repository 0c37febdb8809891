// Scale tiers (docs/reference/ai-platform-training.md §3): names, flag spellings and what each
// allocates.
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"

namespace trainyard::catalog {
namespace {

struct TierCase {
  std::string name;  // test name
  std::string tier;
  std::string flag_name;
  std::string master_type;
  std::string worker_type;
  int worker_count;
  std::string parameter_server_type;
  int parameter_server_count;

  friend void PrintTo(const TierCase& c, std::ostream* os) { *os << c.name; }
};

class ScaleTierTest : public ::testing::TestWithParam<TierCase> {};

TEST_P(ScaleTierTest, AllocatesTheDocumentedCluster) {
  const TierCase& c = GetParam();
  const Catalog& catalog = Catalog::Builtin();
  const ScaleTierSpec* tier = catalog.FindScaleTier(c.tier);
  ASSERT_NE(tier, nullptr);
  EXPECT_EQ(catalog.FindScaleTierByFlag(c.flag_name), tier);
  EXPECT_EQ(tier->flag_name, c.flag_name);
  EXPECT_EQ(tier->master_type, c.master_type);
  EXPECT_EQ(tier->worker_type, c.worker_type);
  EXPECT_EQ(tier->worker_count, c.worker_count);
  EXPECT_EQ(tier->parameter_server_type, c.parameter_server_type);
  EXPECT_EQ(tier->parameter_server_count, c.parameter_server_count);
  EXPECT_FALSE(tier->description.empty());
}

INSTANTIATE_TEST_SUITE_P(
    Reference, ScaleTierTest,
    ::testing::Values(TierCase{"Basic", "BASIC", "basic", "standard", "", 0, "", 0},
                      TierCase{"Standard1", "STANDARD_1", "standard-1", "complex_model_s",
                               "complex_model_s", 4, "standard", 3},
                      TierCase{"Premium1", "PREMIUM_1", "premium-1", "complex_model_m",
                               "complex_model_m", 19, "large_model", 11},
                      TierCase{"BasicGpu", "BASIC_GPU", "basic-gpu", "standard_gpu", "", 0, "", 0},
                      TierCase{"BasicTpu", "BASIC_TPU", "basic-tpu", "standard", "cloud_tpu", 1, "",
                               0},
                      TierCase{"Custom", "CUSTOM", "custom", "", "", 0, "", 0}),
    [](const auto& tc) { return tc.param.name; });

TEST(ScaleTiers, AreListedInEnumOrder) {
  std::vector<std::string> names;
  for (const ScaleTierSpec& tier : Catalog::Builtin().scale_tiers()) {
    names.push_back(tier.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"BASIC", "STANDARD_1", "PREMIUM_1", "BASIC_GPU",
                                             "BASIC_TPU", "CUSTOM"}));
}

TEST(ScaleTiers, ResolveToTheReferencesMachines) {
  const Catalog& catalog = Catalog::Builtin();
  // STANDARD_1: master and workers n1-highcpu-8 (8 vCPU / 7.2 GB), ps n1-standard-4.
  const MachineType* standard1_master =
      catalog.FindMachineType(catalog.FindScaleTier("STANDARD_1")->master_type);
  ASSERT_NE(standard1_master, nullptr);
  EXPECT_EQ(standard1_master->compute_engine_equivalent, "n1-highcpu-8");
  EXPECT_EQ(standard1_master->vcpus, 8);
  EXPECT_DOUBLE_EQ(standard1_master->memory_gb, 7.2);
  // BASIC_GPU: one NVIDIA Tesla K80 (GPU seed).
  const MachineType* gpu_master =
      catalog.FindMachineType(catalog.FindScaleTier("BASIC_GPU")->master_type);
  ASSERT_NE(gpu_master, nullptr);
  EXPECT_EQ(gpu_master->builtin_accelerator, "NVIDIA_TESLA_K80");
  EXPECT_EQ(gpu_master->builtin_accelerator_count, 1);
  // BASIC_TPU: one TPU worker with 8 TPU v2 cores (TPU seed).
  const MachineType* tpu_worker =
      catalog.FindMachineType(catalog.FindScaleTier("BASIC_TPU")->worker_type);
  ASSERT_NE(tpu_worker, nullptr);
  EXPECT_EQ(tpu_worker->family, MachineFamily::kTpuHost);
  EXPECT_EQ(tpu_worker->builtin_accelerator, "TPU_V2");
  EXPECT_EQ(tpu_worker->builtin_accelerator_count, 8);
}

}  // namespace
}  // namespace trainyard::catalog
