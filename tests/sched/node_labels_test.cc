// Node labels: Kubernetes label syntax, and the well-known labels of detected, declared and
// emulated nodes.
#include "sched/node_labels.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "sched/host_inventory.h"
#include "sched/inventory.h"
#include "sched/test_catalog.h"

namespace trainyard::sched {
namespace {

using Labels = std::map<std::string, std::string>;

struct SyntaxCase {
  std::string name;
  std::string text;
  bool key = false;    // valid as a key
  bool value = false;  // valid as a value
  friend void PrintTo(const SyntaxCase& c, std::ostream* os) { *os << c.name; }
};

class LabelSyntaxTest : public ::testing::TestWithParam<SyntaxCase> {};

TEST_P(LabelSyntaxTest, FollowsKubernetes) {
  EXPECT_EQ(IsLabelKey(GetParam().text), GetParam().key);
  EXPECT_EQ(IsLabelValue(GetParam().text), GetParam().value);
}

INSTANTIATE_TEST_SUITE_P(
    Rows, LabelSyntaxTest,
    ::testing::Values(SyntaxCase{"Simple", "nvidia", true, true},
                      SyntaxCase{"Empty", "", false, true},
                      SyntaxCase{"MixedCaseDigitsAndPunctuation", "GPU_type-2.x", true, true},
                      SyntaxCase{"Prefixed", "nvidia.com/gpu.product", true, false},
                      SyntaxCase{"PrefixedWithDashes", "cloud.google.com/gke-accelerator", true,
                                 false},
                      SyntaxCase{"SixtyThree", std::string(63, 'a'), true, true},
                      SyntaxCase{"SixtyFour", std::string(64, 'a'), false, false},
                      SyntaxCase{"LongPrefixLongName",
                                 std::string(253, 'a') + "/" + std::string(63, 'b'), true, false},
                      SyntaxCase{"PrefixTooLong", std::string(254, 'a') + "/b", false, false},
                      SyntaxCase{"StartsWithDash", "-gpu", false, false},
                      SyntaxCase{"EndsWithDot", "gpu.", false, false},
                      SyntaxCase{"Space", "nvidia t4", false, false},
                      SyntaxCase{"EmptyName", "example.com/", false, false},
                      SyntaxCase{"EmptyPrefix", "/gpu", false, false},
                      SyntaxCase{"UpperCasePrefix", "Example.com/gpu", false, false},
                      SyntaxCase{"PrefixWithEmptyPart", "example..com/gpu", false, false},
                      SyntaxCase{"PrefixPartEndsWithDash", "example-.com/gpu", false, false},
                      SyntaxCase{"TwoSlashes", "a/b/c", false, false},
                      SyntaxCase{"NonAscii", "gpü", false, false}),
    [](const auto& tc) { return tc.param.name; });

struct WellKnownCase {
  std::string name;
  Node node;
  Labels labels;  // every label, after WithWellKnownLabels(node, catalog, "amd64")
  friend void PrintTo(const WellKnownCase& c, std::ostream* os) { *os << c.name; }
};

// What every node gets, with `more`.
Labels Basic(const std::string& hostname, Labels more = {}) {
  more.try_emplace("kubernetes.io/hostname", hostname);
  more.try_emplace("kubernetes.io/os", "linux");
  more.try_emplace("kubernetes.io/arch", "amd64");
  return more;
}

// A node with `devices` as detection reads them from nvidia-smi.
Node Detected(const std::string& smi_output) {
  Result<std::vector<Device>> devices = ParseNvidiaSmiGpus(smi_output, Catalog());
  EXPECT_TRUE(devices.ok()) << devices.status().ToString();
  return Node{.name = "localhost",
              .cpus = 8,
              .memory_mib = 1024,
              .devices = devices.ok() ? *devices : std::vector<Device>{}};
}

Node Declared(const std::string& yaml) {
  Result<Inventory> inventory = ParseClusterFile(yaml, Catalog());
  EXPECT_TRUE(inventory.ok()) << inventory.status().ToString();
  return inventory.ok() ? inventory->nodes.front() : Node{};
}

Node Bare(const std::string& name) {
  return Node{.name = name, .cpus = 8, .memory_mib = 1024, .devices = {}};
}

class WellKnownLabelsTest : public ::testing::TestWithParam<WellKnownCase> {};

TEST_P(WellKnownLabelsTest, DescribeTheNode) {
  EXPECT_EQ(WithWellKnownLabels(GetParam().node, Catalog(), "amd64").labels, GetParam().labels);
}

INSTANTIATE_TEST_SUITE_P(
    Nodes, WellKnownLabelsTest,
    ::testing::Values(
        WellKnownCase{"NoGpus", Bare("box1"), Basic("box1")},
        WellKnownCase{
            "DetectedT4s", Detected("0, Tesla T4\n1, Tesla T4\n"),
            Basic("localhost", {{"nvidia.com/gpu.present", "true"},
                                {"nvidia.com/gpu.product", "Tesla-T4"},
                                {"nvidia.com/gpu.count", "2"},
                                {"cloud.google.com/gke-accelerator", "nvidia-tesla-t4"}})},
        WellKnownCase{
            "DetectedModelsTheFirstIsLabelled",
            Detected("0, NVIDIA H100 80GB HBM3\n1, Tesla T4\n2, NVIDIA H100 80GB HBM3\n"),
            Basic("localhost", {{"nvidia.com/gpu.present", "true"},
                                {"nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3"},
                                {"nvidia.com/gpu.count", "2"},
                                {"cloud.google.com/gke-accelerator", "nvidia-h100-80gb"}})},
        WellKnownCase{
            "DetectedModelTheCatalogLacks", Detected("0, NVIDIA GeForce RTX 4090 (rev. b)\n"),
            Basic("localhost", {{"nvidia.com/gpu.present", "true"},
                                {"nvidia.com/gpu.product", "NVIDIA-GeForce-RTX-4090--rev.-b"},
                                {"nvidia.com/gpu.count", "1"}})},
        WellKnownCase{
            "Emulated", WithEmulatedAccelerators(Bare("localhost"), Catalog(), 2),
            Basic("localhost", {{"nvidia.com/gpu.present", "true"},
                                {"nvidia.com/gpu.product", "NVIDIA-Tesla-K80"},
                                {"nvidia.com/gpu.count", "2"},
                                {"cloud.google.com/gke-accelerator", "nvidia-tesla-k80"}})},
        WellKnownCase{
            "RealGpusKeepTheirLabelsUnderEmulation",
            WithEmulatedAccelerators(
                WithWellKnownLabels(Detected("0, Tesla T4\n"), Catalog(), "amd64"), Catalog(), 2),
            Basic("localhost", {{"nvidia.com/gpu.present", "true"},
                                {"nvidia.com/gpu.product", "Tesla-T4"},
                                {"nvidia.com/gpu.count", "1"},
                                {"cloud.google.com/gke-accelerator", "nvidia-tesla-t4"}})},
        WellKnownCase{"DeclaredH100",
                      Declared("nodes: [{name: box, cpus: 8, memory: 8Gi, "
                               "accelerators: {NVIDIA_H100_80GB: 8}}]"),
                      Basic("box", {{"nvidia.com/gpu.present", "true"},
                                    {"nvidia.com/gpu.product", "NVIDIA-H100-80GB"},
                                    {"nvidia.com/gpu.count", "8"},
                                    {"cloud.google.com/gke-accelerator", "nvidia-h100-80gb"}})},
        WellKnownCase{"DeclaredEmulatedUsesTheDisplayName",
                      Declared("nodes: [{name: box, cpus: 8, memory: 8Gi, emulated: true, "
                               "accelerators: {NVIDIA_TESLA_V100: 1}}]"),
                      Basic("box", {{"nvidia.com/gpu.present", "true"},
                                    {"nvidia.com/gpu.product", "NVIDIA-Tesla-V100"},
                                    {"nvidia.com/gpu.count", "1"},
                                    {"cloud.google.com/gke-accelerator", "nvidia-tesla-v100"}})},
        WellKnownCase{"TpusAreNoGpus",
                      Declared("nodes: [{name: tpu, cpus: 8, memory: 8Gi, "
                               "accelerators: {TPU_V2: 8}}]"),
                      Basic("tpu")},
        WellKnownCase{"TheFirstGpuAfterTpus",
                      Declared("nodes: [{name: tpu, cpus: 8, memory: 8Gi, "
                               "accelerators: {TPU_V2: 8, NVIDIA_TESLA_P4: 1}}]"),
                      Basic("tpu", {{"nvidia.com/gpu.present", "true"},
                                    {"nvidia.com/gpu.product", "NVIDIA-Tesla-P4"},
                                    {"nvidia.com/gpu.count", "1"},
                                    {"cloud.google.com/gke-accelerator", "nvidia-tesla-p4"}})},
        WellKnownCase{
            "DeclaredLabelsWin",
            Declared("nodes: [{name: box, cpus: 8, memory: 8Gi, "
                     "accelerators: {NVIDIA_TESLA_T4: 1}, labels: {"
                     "kubernetes.io/arch: arm64, nvidia.com/gpu.product: T4, nvidia: t4}}]"),
            Basic("box", {{"kubernetes.io/arch", "arm64"},
                          {"nvidia", "t4"},
                          {"nvidia.com/gpu.present", "true"},
                          {"nvidia.com/gpu.product", "T4"},
                          {"nvidia.com/gpu.count", "1"},
                          {"cloud.google.com/gke-accelerator", "nvidia-tesla-t4"}})},
        WellKnownCase{"NameMadeALabelValue", Bare("-rack 7/box 1-"), Basic("rack-7-box-1")}),
    [](const auto& tc) { return tc.param.name; });

TEST(WellKnownLabelsTest, ArchIsTheGivenOne) {
  EXPECT_EQ(WithWellKnownLabels(Bare("a"), Catalog(), "arm64").labels.at("kubernetes.io/arch"),
            "arm64");
  EXPECT_TRUE(kBuildArch == "amd64" || kBuildArch == "arm64" || kBuildArch == "ppc64le" ||
              kBuildArch == "s390x" || kBuildArch == "riscv64");
}

TEST(WellKnownLabelsTest, ClusterFileAndDetectionUseTheBuildArch) {
  EXPECT_EQ(Declared("nodes: [{name: a, cpus: 1, memory: 1Gi}]").labels.at("kubernetes.io/arch"),
            kBuildArch);
  Result<Node> local = DetectLocalNode(Catalog(), {.nvidia_smi = "/nonexistent/nvidia-smi"});
  ASSERT_TRUE(local.ok()) << local.status().ToString();
  EXPECT_EQ(local->labels, WithWellKnownLabels(Bare("localhost"), Catalog(), kBuildArch).labels);
}

TEST(WellKnownLabelsTest, EveryValueIsALabelValue) {
  const Node node =
      WithWellKnownLabels(Detected("0, " + std::string(80, 'X') + "\n"), Catalog(), kBuildArch);
  for (const auto& [key, value] : node.labels) {
    EXPECT_TRUE(IsLabelKey(key)) << key;
    EXPECT_TRUE(IsLabelValue(value)) << key << "=" << value;
  }
  EXPECT_EQ(node.labels.at("nvidia.com/gpu.product"), std::string(63, 'X'));
}

}  // namespace
}  // namespace trainyard::sched
