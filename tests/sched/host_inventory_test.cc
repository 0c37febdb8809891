// nvidia-smi and /proc/meminfo parsing, and DetectLocalNode on this machine with fake nvidia-smi
// scripts.
#include "sched/host_inventory.h"

#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "fakes/temp_dir.h"
#include "sched/test_catalog.h"

namespace trainyard::sched {
namespace {

struct GpuNameCase {
  std::string name;
  std::string device_name;  // as `nvidia-smi --query-gpu=name` prints it
  std::string accelerator;  // "" when the catalog has no such model
  friend void PrintTo(const GpuNameCase& c, std::ostream* os) { *os << c.name; }
};

class NvidiaSmiNameTest : public ::testing::TestWithParam<GpuNameCase> {};

TEST_P(NvidiaSmiNameTest, MapsTheModelToTheCatalog) {
  Result<std::vector<Device>> devices =
      ParseNvidiaSmiGpus("3, " + GetParam().device_name + "\n", Catalog());
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_EQ((*devices)[0].index, 3);
  EXPECT_EQ((*devices)[0].model, GetParam().device_name);
  EXPECT_EQ((*devices)[0].accelerator, GetParam().accelerator);
  EXPECT_FALSE((*devices)[0].emulated);
}

INSTANTIATE_TEST_SUITE_P(
    RealNames, NvidiaSmiNameTest,
    ::testing::Values(GpuNameCase{"K80", "Tesla K80", "NVIDIA_TESLA_K80"},
                      GpuNameCase{"P4", "Tesla P4", "NVIDIA_TESLA_P4"},
                      GpuNameCase{"P100Pcie", "Tesla P100-PCIE-16GB", "NVIDIA_TESLA_P100"},
                      GpuNameCase{"P100Sxm2", "Tesla P100-SXM2-16GB", "NVIDIA_TESLA_P100"},
                      GpuNameCase{"T4", "Tesla T4", "NVIDIA_TESLA_T4"},
                      GpuNameCase{"T4NewerDriver", "NVIDIA Tesla T4", "NVIDIA_TESLA_T4"},
                      GpuNameCase{"V100Sxm2", "Tesla V100-SXM2-16GB", "NVIDIA_TESLA_V100"},
                      GpuNameCase{"V100Pcie32", "Tesla V100-PCIE-32GB", "NVIDIA_TESLA_V100"},
                      GpuNameCase{"A100Sxm40", "NVIDIA A100-SXM4-40GB", "NVIDIA_TESLA_A100"},
                      GpuNameCase{"A100Sxm40OldDriver", "A100-SXM4-40GB", "NVIDIA_TESLA_A100"},
                      GpuNameCase{"A100Pcie40", "NVIDIA A100-PCIE-40GB", "NVIDIA_TESLA_A100"},
                      GpuNameCase{"A100Sxm80", "NVIDIA A100-SXM4-80GB", "NVIDIA_A100_80GB"},
                      GpuNameCase{"A100Pcie80", "NVIDIA A100 80GB PCIe", "NVIDIA_A100_80GB"},
                      GpuNameCase{"H100Sxm", "NVIDIA H100 80GB HBM3", "NVIDIA_H100_80GB"},
                      GpuNameCase{"H100Pcie", "NVIDIA H100 PCIe", "NVIDIA_H100_80GB"},
                      GpuNameCase{"H200", "NVIDIA H200", "NVIDIA_H200"},
                      GpuNameCase{"L4", "NVIDIA L4", "NVIDIA_L4"},
                      GpuNameCase{"P40NotP4", "Tesla P40", ""},
                      GpuNameCase{"L40SNotL4", "NVIDIA L40S", ""},
                      GpuNameCase{"GeForce", "NVIDIA GeForce RTX 4090", ""}),
    [](const auto& tc) { return tc.param.name; });

TEST(NvidiaSmiTest, ReadsEveryLineTolerantOfSpacesAndCrlf) {
  Result<std::vector<Device>> devices = ParseNvidiaSmiGpus(
      "0, Tesla T4  \r\n\n1, NVIDIA A100-SXM4-80GB\r\n  2 ,  NVIDIA H100 80GB HBM3 \n\n",
      Catalog());
  ASSERT_TRUE(devices.ok()) << devices.status().ToString();
  ASSERT_EQ(devices->size(), 3u);
  EXPECT_EQ((*devices)[0].model, "Tesla T4");
  EXPECT_EQ((*devices)[1].index, 1);
  EXPECT_EQ((*devices)[1].accelerator, "NVIDIA_A100_80GB");
  EXPECT_EQ((*devices)[2].index, 2);
  EXPECT_EQ((*devices)[2].model, "NVIDIA H100 80GB HBM3");
  EXPECT_EQ((*devices)[2].accelerator, "NVIDIA_H100_80GB");
}

TEST(NvidiaSmiTest, EmptyOutputIsNoDevices) {
  Result<std::vector<Device>> devices = ParseNvidiaSmiGpus("\n", Catalog());
  ASSERT_TRUE(devices.ok());
  EXPECT_TRUE(devices->empty());
}

struct BadLineCase {
  std::string name;
  std::string output;
  std::string expected;  // a part of the message
  friend void PrintTo(const BadLineCase& c, std::ostream* os) { *os << c.name; }
};

class NvidiaSmiRefusalTest : public ::testing::TestWithParam<BadLineCase> {};

TEST_P(NvidiaSmiRefusalTest, NamesTheLine) {
  Result<std::vector<Device>> devices = ParseNvidiaSmiGpus(GetParam().output, Catalog());
  ASSERT_FALSE(devices.ok());
  EXPECT_EQ(devices.status().code(), Code::kInvalidArgument);
  EXPECT_NE(devices.status().message().find(GetParam().expected), std::string::npos)
      << devices.status().message();
}

INSTANTIATE_TEST_SUITE_P(
    BadOutput, NvidiaSmiRefusalTest,
    ::testing::Values(BadLineCase{"NoComma", "0, Tesla T4\nTesla T4\n", "line 2"},
                      BadLineCase{"NoName", "0,\n", "line 1"},
                      BadLineCase{"IndexNotANumber", "\nzero, Tesla T4\n", "line 2"},
                      BadLineCase{"NegativeIndex", "-1, Tesla T4\n", "line 1"},
                      BadLineCase{"RepeatedIndex", "0, Tesla T4\n0, Tesla T4\n", "index 0"},
                      BadLineCase{"DriverError",
                                  "NVIDIA-SMI has failed because it couldn't communicate with "
                                  "the NVIDIA driver.\n",
                                  "NVIDIA-SMI has failed"}),
    [](const auto& tc) { return tc.param.name; });

TEST(MemInfoTest, ReadsMemTotalInMib) {
  Result<std::int64_t> mib = ParseMemTotalMib(
      "MemFree:         1234 kB\nMemTotal:       16314516 kB\nMemAvailable:   9 kB\n");
  ASSERT_TRUE(mib.ok()) << mib.status().ToString();
  EXPECT_EQ(*mib, 15932);
}

TEST(MemInfoTest, MissingOrBrokenMemTotalIsAnError) {
  EXPECT_EQ(ParseMemTotalMib("MemFree: 1 kB\n").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ParseMemTotalMib("MemTotal: lots kB\n").status().code(), Code::kInvalidArgument);
  EXPECT_EQ(ParseMemTotalMib("").status().code(), Code::kInvalidArgument);
}

// An executable shell script `name` in `dir` with `body` after the #! line.
std::string WriteScript(const testing::TempDir& dir, const std::string& name,
                        const std::string& body) {
  std::string path = dir.File(name);
  {
    std::ofstream file(path);
    file << "#!/bin/sh\n" << body;
  }
  std::filesystem::permissions(path, std::filesystem::perms::owner_all);
  return path;
}

TEST(DetectLocalNodeTest, SeesThisMachine) {
  testing::TempDir dir;
  Result<Node> node = DetectLocalNode(Catalog(), {.nvidia_smi = dir.File("no-such-nvidia-smi")});
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_EQ(node->name, "localhost");
  EXPECT_GT(node->cpus, 0);
  EXPECT_GT(node->memory_mib, 0);
  EXPECT_TRUE(node->devices.empty());
}

TEST(DetectLocalNodeTest, WithTheDefaultNvidiaSmi) {
  // This machine may or may not have GPUs; either way detection succeeds or names nvidia-smi.
  Result<Node> node = DetectLocalNode(Catalog());
  if (!node.ok()) {
    EXPECT_NE(node.status().message().find("nvidia-smi"), std::string::npos);
    return;
  }
  EXPECT_GT(node->cpus, 0);
  EXPECT_GT(node->memory_mib, 0);
}

TEST(DetectLocalNodeTest, ReadsTheGpusNvidiaSmiPrints) {
  testing::TempDir dir;
  const std::string smi = WriteScript(
      dir, "nvidia-smi",
      "[ \"$1\" = --query-gpu=index,name ] && [ \"$2\" = --format=csv,noheader ] || exit 2\n"
      "echo '0, Tesla T4'\necho '1, NVIDIA A100-SXM4-80GB'\n");
  Result<Node> node = DetectLocalNode(Catalog(), {.nvidia_smi = smi});
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  ASSERT_EQ(node->devices.size(), 2u);
  EXPECT_EQ(node->devices[0].accelerator, "NVIDIA_TESLA_T4");
  EXPECT_EQ(node->devices[1].index, 1);
  EXPECT_EQ(node->devices[1].accelerator, "NVIDIA_A100_80GB");
  EXPECT_EQ(node->CountOf("NVIDIA_TESLA_T4"), 1);
}

TEST(DetectLocalNodeTest, FailingNvidiaSmiIsAnErrorWithItsLastLine) {
  testing::TempDir dir;
  const std::string smi = WriteScript(
      dir, "nvidia-smi", "echo 'some detail' >&2\necho 'Failed to initialize NVML' >&2\nexit 1\n");
  Result<Node> node = DetectLocalNode(Catalog(), {.nvidia_smi = smi});
  ASSERT_FALSE(node.ok());
  EXPECT_NE(node.status().message().find(smi), std::string::npos) << node.status().message();
  EXPECT_NE(node.status().message().find("Failed to initialize NVML"), std::string::npos)
      << node.status().message();
  EXPECT_EQ(node.status().message().find("some detail"), std::string::npos);
}

TEST(DetectLocalNodeTest, NoDevicesFoundIsNoGpus) {
  testing::TempDir dir;
  const std::string smi = WriteScript(dir, "nvidia-smi", "echo 'No devices were found'\nexit 6\n");
  Result<Node> node = DetectLocalNode(Catalog(), {.nvidia_smi = smi});
  ASSERT_TRUE(node.ok()) << node.status().ToString();
  EXPECT_TRUE(node->devices.empty());
}

TEST(DetectLocalNodeTest, GarbledOutputIsAnError) {
  testing::TempDir dir;
  const std::string smi = WriteScript(dir, "nvidia-smi", "echo 'index, name'\necho 'garbage'\n");
  Result<Node> node = DetectLocalNode(Catalog(), {.nvidia_smi = smi});
  ASSERT_FALSE(node.ok());
  EXPECT_EQ(node.status().code(), Code::kInvalidArgument);
}

}  // namespace
}  // namespace trainyard::sched
