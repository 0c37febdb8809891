// DemandOf: machine types' vCPUs and memory from the catalog, built-in accelerators.
#include <optional>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "sched/placement.h"
#include "sched/test_catalog.h"

namespace trainyard::sched {
namespace {

struct DemandCase {
  std::string name;
  std::string machine_type;
  std::string accelerator;
  int count = 0;
  // Expected demand; unused when `error` is set.
  int cpus = 0;
  std::int64_t memory_mib = 0;
  std::string demand_accelerator;
  int demand_count = 0;
  std::optional<Code> error;
  friend void PrintTo(const DemandCase& c, std::ostream* os) { *os << c.name; }
};

class DemandOfTest : public ::testing::TestWithParam<DemandCase> {};

TEST_P(DemandOfTest, ReadsTheCatalog) {
  const DemandCase& c = GetParam();
  Result<ReplicaDemand> demand = DemandOf("worker-replica-3", c.machine_type, c.accelerator,
                                          c.count, catalog::Catalog::Builtin());
  if (c.error) {
    ASSERT_FALSE(demand.ok());
    EXPECT_EQ(demand.status().code(), *c.error);
    EXPECT_NE(demand.status().message().find("worker-replica-3"), std::string::npos)
        << demand.status().message();
    return;
  }
  ASSERT_TRUE(demand.ok()) << demand.status().ToString();
  EXPECT_EQ(demand->task_name, "worker-replica-3");
  EXPECT_EQ(demand->machine_type, c.machine_type);
  EXPECT_EQ(demand->cpus, c.cpus);
  EXPECT_EQ(demand->memory_mib, c.memory_mib);
  EXPECT_EQ(demand->accelerator, c.demand_accelerator);
  EXPECT_EQ(demand->accelerator_count, c.demand_count);
}

constexpr char kK80[] = "NVIDIA_TESLA_K80";

INSTANTIATE_TEST_SUITE_P(
    Catalog, DemandOfTest,
    ::testing::Values(
        DemandCase{"ComputeEngineWithGpus", "n1-highcpu-16", kT4, 4, 16, 14746, kT4, 4},
        DemandCase{"ComputeEngineAlone", "n1-highmem-8", "", 0, 8, 53248, "", 0},
        DemandCase{"FractionalGbRoundsUp", "complex_model_s", "", 0, 8, 7373, "", 0},
        DemandCase{"LegacyStandard", "standard", "", 0, 4, 15360, "", 0},
        DemandCase{"LegacyBuiltInK80s", "complex_model_m_gpu", "", 0, 16, 61440, kK80, 4},
        DemandCase{"LegacyOneBuiltInK80", "standard_gpu", "", 0, 8, 30720, kK80, 1},
        DemandCase{"NamingTheBuiltInAddsNothing", "complex_model_m_gpu", kK80, 4, 16, 61440, kK80,
                   4},
        DemandCase{"NamingTheBuiltInKeepsItsCount", "complex_model_m_gpu", kK80, 2, 16, 61440, kK80,
                   4},
        DemandCase{"A2BuiltInA100", "a2-highgpu-1g", "", 0, 12, 87040, "NVIDIA_TESLA_A100", 1},
        DemandCase{"CloudTpuBuiltInTpuV2", "cloud_tpu", "", 0, 0, 0, "TPU_V2", 8},
        DemandCase{"CloudTpuTakesTpuV3", "cloud_tpu", "TPU_V3", 8, 0, 0, "TPU_V3", 8},
        DemandCase{.name = "OtherAcceleratorOnBuiltInType",
                   .machine_type = "complex_model_m_gpu",
                   .accelerator = kT4,
                   .count = 1,
                   .error = Code::kInvalidArgument},
        DemandCase{.name = "GpuOnCloudTpu",
                   .machine_type = "cloud_tpu",
                   .accelerator = kT4,
                   .count = 1,
                   .error = Code::kInvalidArgument},
        DemandCase{.name = "UnknownMachineType",
                   .machine_type = "n9-giant",
                   .error = Code::kInvalidArgument},
        DemandCase{.name = "UnknownAccelerator",
                   .machine_type = "n1-standard-8",
                   .accelerator = "NVIDIA_TESLA_Z9",
                   .count = 1,
                   .error = Code::kInvalidArgument},
        DemandCase{.name = "ZeroCountOfANamedType",
                   .machine_type = "n1-standard-8",
                   .accelerator = kT4,
                   .count = 0,
                   .error = Code::kInvalidArgument},
        DemandCase{.name = "CountWithoutAType",
                   .machine_type = "n1-standard-8",
                   .count = 2,
                   .error = Code::kInvalidArgument}),
    [](const auto& tc) { return tc.param.name; });

TEST(DemandOfTest, RefusalNamesTheBuiltInAccelerators) {
  Result<ReplicaDemand> demand =
      DemandOf("master-replica-0", "complex_model_m_gpu", kT4, 1, catalog::Catalog::Builtin());
  ASSERT_FALSE(demand.ok());
  EXPECT_EQ(demand.status().message(),
            "master-replica-0: complex_model_m_gpu comes with 4 × NVIDIA_TESLA_K80 and takes no "
            "NVIDIA_TESLA_T4");
}

}  // namespace
}  // namespace trainyard::sched
