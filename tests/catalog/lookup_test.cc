// Lookups by API name, by gcloud flag spelling and by nvidia-smi device name.
#include <cctype>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"

namespace trainyard::catalog {
namespace {

TEST(FindAcceleratorByFlag, FindsEveryAcceleratorByItsFlagSpelling) {
  const Catalog& catalog = Catalog::Builtin();
  for (const Accelerator& accelerator : catalog.accelerators()) {
    std::string expected;
    for (const char c : accelerator.name) {
      expected += c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
    EXPECT_EQ(accelerator.flag_name, expected);
    EXPECT_EQ(catalog.FindAcceleratorByFlag(accelerator.flag_name), &accelerator);
  }
}

TEST(FindAcceleratorByFlag, TakesOnlyTheFlagSpelling) {
  const Catalog& catalog = Catalog::Builtin();
  const Accelerator* t4 = catalog.FindAcceleratorByFlag("nvidia-tesla-t4");
  ASSERT_NE(t4, nullptr);
  EXPECT_EQ(t4->name, "NVIDIA_TESLA_T4");
  EXPECT_EQ(catalog.FindAcceleratorByFlag("NVIDIA_TESLA_T4"), nullptr);
  EXPECT_EQ(catalog.FindAcceleratorByFlag("nvidia_tesla_t4"), nullptr);
  EXPECT_EQ(catalog.FindAcceleratorByFlag("nvidia-tesla-t5"), nullptr);
  EXPECT_EQ(catalog.FindAccelerator("nvidia-tesla-t4"), nullptr);
}

TEST(CatalogLookups, ReturnNullForUnknownNames) {
  const Catalog& catalog = Catalog::Builtin();
  EXPECT_EQ(catalog.FindMachineType("n1-standard-3"), nullptr);
  EXPECT_EQ(catalog.FindAccelerator("NVIDIA_TESLA_K40"), nullptr);
  EXPECT_EQ(catalog.FindRegion("mars-north1"), nullptr);
  EXPECT_EQ(catalog.FindScaleTier("basic"), nullptr);  // the flag spelling, not the enum
  EXPECT_EQ(catalog.FindScaleTierByFlag("BASIC"), nullptr);
  EXPECT_EQ(catalog.FindRuntimeVersion("1.12"), nullptr);
  EXPECT_EQ(catalog.FindMachineType(""), nullptr);
}

struct DeviceCase {
  std::string name;         // test name
  std::string device_name;  // as `nvidia-smi --query-gpu=name` prints it
  std::string accelerator;  // "" when no catalog model matches

  friend void PrintTo(const DeviceCase& c, std::ostream* os) { *os << c.name; }
};

class DeviceNameTest : public ::testing::TestWithParam<DeviceCase> {};

TEST_P(DeviceNameTest, IdentifiesTheModel) {
  const DeviceCase& c = GetParam();
  const Accelerator* found = Catalog::Builtin().FindAcceleratorByDeviceName(c.device_name);
  if (c.accelerator.empty()) {
    EXPECT_EQ(found, nullptr) << found->name;
  } else {
    ASSERT_NE(found, nullptr);
    EXPECT_EQ(found->name, c.accelerator);
  }
}

INSTANTIATE_TEST_SUITE_P(
    NvidiaSmiNames, DeviceNameTest,
    ::testing::Values(
        DeviceCase{"K80", "Tesla K80", "NVIDIA_TESLA_K80"},
        DeviceCase{"P4", "Tesla P4", "NVIDIA_TESLA_P4"}, DeviceCase{"P40IsNotP4", "Tesla P40", ""},
        DeviceCase{"P100Pcie", "Tesla P100-PCIE-16GB", "NVIDIA_TESLA_P100"},
        DeviceCase{"P100Sxm2", "Tesla P100-SXM2-16GB", "NVIDIA_TESLA_P100"},
        DeviceCase{"T4", "Tesla T4", "NVIDIA_TESLA_T4"},
        DeviceCase{"V100Sxm2", "Tesla V100-SXM2-16GB", "NVIDIA_TESLA_V100"},
        DeviceCase{"V100Pcie32GB", "Tesla V100-PCIE-32GB", "NVIDIA_TESLA_V100"},
        DeviceCase{"A100Sxm40GB", "NVIDIA A100-SXM4-40GB", "NVIDIA_TESLA_A100"},
        DeviceCase{"A100Pcie40GB", "NVIDIA A100-PCIE-40GB", "NVIDIA_TESLA_A100"},
        DeviceCase{"A100Sxm80GB", "NVIDIA A100-SXM4-80GB", "NVIDIA_A100_80GB"},
        DeviceCase{"A100Pcie80GB", "NVIDIA A100 80GB PCIe", "NVIDIA_A100_80GB"},
        DeviceCase{"H100Hbm3", "NVIDIA H100 80GB HBM3", "NVIDIA_H100_80GB"},
        DeviceCase{"H100Pcie", "NVIDIA H100 PCIe", "NVIDIA_H100_80GB"},
        DeviceCase{"H200", "NVIDIA H200", "NVIDIA_H200"},
        DeviceCase{"H200Nvl", "NVIDIA H200 NVL", "NVIDIA_H200"},
        DeviceCase{"GraceHopperIsNotH200", "NVIDIA GH200 480GB", ""},
        DeviceCase{"L4", "NVIDIA L4", "NVIDIA_L4"}, DeviceCase{"L40SIsNotL4", "NVIDIA L40S", ""},
        DeviceCase{"IgnoresCase", "nvidia h100 80gb hbm3", "NVIDIA_H100_80GB"},
        DeviceCase{"GeForce", "NVIDIA GeForce RTX 4090", ""}, DeviceCase{"Empty", "", ""}),
    [](const auto& tc) { return tc.param.name; });

}  // namespace
}  // namespace trainyard::catalog
