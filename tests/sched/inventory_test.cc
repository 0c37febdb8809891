// ParseClusterFile (good and bad files), Node::CountOf and WithEmulatedAccelerators.
#include "sched/inventory.h"

#include <map>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "sched/test_catalog.h"

namespace trainyard::sched {
namespace {

std::vector<std::string> Fields(const Status& status) {
  std::vector<std::string> fields;
  for (const FieldViolation& violation : status.violations()) {
    fields.push_back(violation.field);
  }
  return fields;
}

TEST(ClusterFileTest, ReadsEveryField) {
  Result<Inventory> inventory = ParseClusterFile(R"(
nodes:
  - name: box1
    cpus: 32
    memory: 128Gi
    accelerators:
      NVIDIA_TESLA_T4: 2
      NVIDIA_TESLA_V100: 1
  - name: box2
    cpus: 4
    memory: 2048
    accelerators:
      TPU_V2: 8
    emulated: true
)",
                                                 Catalog());
  ASSERT_TRUE(inventory.ok()) << inventory.status().ToString();
  ASSERT_EQ(inventory->nodes.size(), 2u);
  const Node& box1 = inventory->nodes[0];
  EXPECT_EQ(box1.name, "box1");
  EXPECT_EQ(box1.cpus, 32);
  EXPECT_EQ(box1.memory_mib, 128 * 1024);
  ASSERT_EQ(box1.devices.size(), 3u);
  EXPECT_EQ(box1.devices[0].index, 0);
  EXPECT_EQ(box1.devices[0].accelerator, "NVIDIA_TESLA_T4");
  EXPECT_EQ(box1.devices[0].model, "NVIDIA Tesla T4");
  EXPECT_FALSE(box1.devices[0].emulated);
  EXPECT_EQ(box1.devices[2].index, 2);
  EXPECT_EQ(box1.devices[2].accelerator, "NVIDIA_TESLA_V100");
  const Node& box2 = inventory->nodes[1];
  EXPECT_EQ(box2.memory_mib, 2048);
  EXPECT_EQ(box2.CountOf("TPU_V2"), 8);
  EXPECT_TRUE(box2.devices[7].emulated);
  EXPECT_EQ(box2.devices[7].model, "emulated");
}

struct MemoryCase {
  std::string name;
  std::string memory;
  std::int64_t mib;
  friend void PrintTo(const MemoryCase& c, std::ostream* os) { *os << c.name; }
};

class ClusterFileMemoryTest : public ::testing::TestWithParam<MemoryCase> {};

TEST_P(ClusterFileMemoryTest, ReadsTheSuffix) {
  Result<Inventory> inventory =
      ParseClusterFile("nodes: [{name: a, cpus: 1, memory: " + GetParam().memory + "}]", Catalog());
  ASSERT_TRUE(inventory.ok()) << inventory.status().ToString();
  EXPECT_EQ(inventory->nodes[0].memory_mib, GetParam().mib);
}

INSTANTIATE_TEST_SUITE_P(Suffixes, ClusterFileMemoryTest,
                         ::testing::Values(MemoryCase{"PlainMib", "4096", 4096},
                                           MemoryCase{"Mi", "512Mi", 512},
                                           MemoryCase{"Gi", "2Gi", 2048},
                                           MemoryCase{"Ti", "1Ti", 1 << 20},
                                           MemoryCase{"Quoted", "\"64Gi\"", 65536}),
                         [](const auto& tc) { return tc.param.name; });

struct BadFileCase {
  std::string name;
  std::string yaml;
  std::vector<std::string> fields;  // every violation's path, in order
  friend void PrintTo(const BadFileCase& c, std::ostream* os) { *os << c.name; }
};

class ClusterFileRefusalTest : public ::testing::TestWithParam<BadFileCase> {};

TEST_P(ClusterFileRefusalTest, NamesEveryProblem) {
  Result<Inventory> inventory = ParseClusterFile(GetParam().yaml, Catalog());
  ASSERT_FALSE(inventory.ok());
  EXPECT_EQ(inventory.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Fields(inventory.status()), GetParam().fields) << inventory.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(
    BadFiles, ClusterFileRefusalTest,
    ::testing::Values(
        BadFileCase{"Empty", "", {"nodes"}}, BadFileCase{"NotAMapping", "- a\n- b\n", {"nodes"}},
        BadFileCase{"NoNodes", "{}", {"nodes"}},
        BadFileCase{"NodesNotAList", "nodes: 3", {"nodes"}},
        BadFileCase{"NodesEmpty", "nodes: []", {"nodes"}},
        BadFileCase{
            "UnknownTopLevelKey", "nodes: [{name: a, cpus: 1, memory: 1Gi}]\nnode: x\n", {"node"}},
        BadFileCase{"NodeNotAMapping", "nodes: [box]", {"nodes[0]"}},
        BadFileCase{"MissingRequiredKeys",
                    "nodes: [{accelerators: {}}]",
                    {"nodes[0].name", "nodes[0].cpus", "nodes[0].memory"}},
        BadFileCase{"EveryProblemAtOnce",
                    R"(nodes:
  - name: ok
    cpus: 2
    memory: 1Gi
  - name: ""
    colour: red
    cpus: 0
    memory: 12GB
    emulated: maybe
    accelerators:
      NVIDIA_TESLA_Z9: 1
      NVIDIA_TESLA_T4: -1
  - name: bad-cpus
    cpus: 2.5
    memory: -1Gi
  - name: ok
    cpus: 1
    memory: 1Gi
)",
                    {"nodes[1].colour", "nodes[1].name", "nodes[1].cpus", "nodes[1].memory",
                     "nodes[1].emulated", "nodes[1].accelerators.NVIDIA_TESLA_Z9",
                     "nodes[1].accelerators.NVIDIA_TESLA_T4", "nodes[2].cpus", "nodes[2].memory",
                     "nodes[3].name"}},
        BadFileCase{
            "RepeatedKey", "nodes: [{name: a, name: b, cpus: 1, memory: 1Gi}]", {"nodes[0].name"}},
        BadFileCase{"AcceleratorsNotAMapping",
                    "nodes: [{name: a, cpus: 1, memory: 1Gi, accelerators: [NVIDIA_TESLA_T4]}]",
                    {"nodes[0].accelerators"}},
        BadFileCase{"MemoryOverflows",
                    "nodes: [{name: a, cpus: 1, memory: 99999999999999999Ti}]",
                    {"nodes[0].memory"}},
        BadFileCase{
            "CpusNotANumber", "nodes: [{name: a, cpus: [1], memory: 1Gi}]", {"nodes[0].cpus"}}),
    [](const auto& tc) { return tc.param.name; });

TEST(ClusterFileTest, ReadsLabelsAndAddsTheWellKnownOnes) {
  Result<Inventory> inventory = ParseClusterFile(R"(
nodes:
  - name: box1
    cpus: 8
    memory: 8Gi
    labels:
      nvidia: t4
      example.com/rack: "7"
      empty: ""
      kubernetes.io/os: linux-rt
)",
                                                 Catalog());
  ASSERT_TRUE(inventory.ok()) << inventory.status().ToString();
  const std::map<std::string, std::string> labels = inventory->nodes[0].labels;
  EXPECT_EQ(labels.at("nvidia"), "t4");
  EXPECT_EQ(labels.at("example.com/rack"), "7");
  EXPECT_EQ(labels.at("empty"), "");
  EXPECT_EQ(labels.at("kubernetes.io/os"), "linux-rt");  // declared wins
  EXPECT_EQ(labels.at("kubernetes.io/hostname"), "box1");
  EXPECT_TRUE(inventory->nodes[0].HasLabels({{"nvidia", "t4"}, {"example.com/rack", "7"}}));
  EXPECT_FALSE(inventory->nodes[0].HasLabels({{"nvidia", "v100"}}));
}

struct LabelRowCase {
  std::string name;
  std::string labels;               // the node's `labels:` value, YAML flow style
  std::vector<std::string> fields;  // every violation's path; none: accepted
  friend void PrintTo(const LabelRowCase& c, std::ostream* os) { *os << c.name; }
};

class ClusterFileLabelTest : public ::testing::TestWithParam<LabelRowCase> {};

TEST_P(ClusterFileLabelTest, ChecksKubernetesSyntax) {
  Result<Inventory> inventory = ParseClusterFile(
      "nodes: [{name: ok, cpus: 1, memory: 1Gi}, {name: box, cpus: 1, memory: 1Gi, labels: " +
          GetParam().labels + "}]",
      Catalog());
  if (GetParam().fields.empty()) {
    EXPECT_TRUE(inventory.ok()) << inventory.status().ToString();
    return;
  }
  ASSERT_FALSE(inventory.ok());
  EXPECT_EQ(inventory.status().code(), Code::kInvalidArgument);
  EXPECT_EQ(Fields(inventory.status()), GetParam().fields) << inventory.status().ToString();
}

INSTANTIATE_TEST_SUITE_P(
    Rows, ClusterFileLabelTest,
    ::testing::Values(
        LabelRowCase{"Plain", "{nvidia: t4}", {}},
        LabelRowCase{"Prefixed", "{nvidia.com/gpu.product: Tesla-T4}", {}},
        LabelRowCase{"EmptyValue", "{ssd: \"\"}", {}}, LabelRowCase{"NumberValue", "{rack: 7}", {}},
        LabelRowCase{"NoLabels", "", {}}, LabelRowCase{"EmptyMapping", "{}", {}},
        LabelRowCase{"NotAMapping", "[nvidia]", {"nodes[1].labels"}},
        LabelRowCase{"KeyWithSpace", "{\"gpu type\": t4}", {"nodes[1].labels.gpu type"}},
        LabelRowCase{"KeyTooLong",
                     "{" + std::string(64, 'k') + ": v}",
                     {"nodes[1].labels." + std::string(64, 'k')}},
        LabelRowCase{
            "UpperCasePrefix", "{Example.com/gpu: t4}", {"nodes[1].labels.Example.com/gpu"}},
        LabelRowCase{"EmptyName", "{example.com/: t4}", {"nodes[1].labels.example.com/"}},
        LabelRowCase{"ValueWithSpace", "{nvidia: Tesla T4}", {"nodes[1].labels.nvidia"}},
        LabelRowCase{"ValueStartsWithDash", "{nvidia: -t4}", {"nodes[1].labels.nvidia"}},
        LabelRowCase{
            "ValueTooLong", "{nvidia: " + std::string(64, 'v') + "}", {"nodes[1].labels.nvidia"}},
        LabelRowCase{"ValueNotAString", "{nvidia: [t4]}", {"nodes[1].labels.nvidia"}},
        LabelRowCase{"NullValue", "{nvidia: ~}", {"nodes[1].labels.nvidia"}},
        LabelRowCase{"Repeated", "{nvidia: t4, nvidia: v100}", {"nodes[1].labels.nvidia"}},
        LabelRowCase{"EveryBadRowNamed",
                     "{a b: 1, ok: fine, c: d e}",
                     {"nodes[1].labels.a b", "nodes[1].labels.c"}}),
    [](const auto& tc) { return tc.param.name; });

TEST(ClusterFileTest, LabelViolationsSayTheRuleAndTheValue) {
  Result<Inventory> inventory = ParseClusterFile(
      "nodes: [{name: a, cpus: 1, memory: 1Gi, labels: {nvidia/: t4, gpu: Tesla T4}}]", Catalog());
  ASSERT_FALSE(inventory.ok());
  ASSERT_EQ(inventory.status().violations().size(), 2u);
  EXPECT_EQ(inventory.status().violations()[0].field, "nodes[0].labels.nvidia/");
  EXPECT_NE(inventory.status().violations()[0].description.find("63"), std::string::npos);
  EXPECT_EQ(inventory.status().violations()[1].field, "nodes[0].labels.gpu");
  EXPECT_NE(inventory.status().violations()[1].description.find("got Tesla T4"), std::string::npos)
      << inventory.status().violations()[1].description;
}

TEST(ClusterFileTest, NotYamlNamesTheLine) {
  Result<Inventory> inventory = ParseClusterFile("nodes:\n  - name: a\n    cpus: [1\n", Catalog());
  ASSERT_FALSE(inventory.ok());
  EXPECT_EQ(inventory.status().code(), Code::kInvalidArgument);
  EXPECT_NE(inventory.status().message().find("line "), std::string::npos)
      << inventory.status().message();
}

TEST(ClusterFileTest, ViolationSaysWhatIsAccepted) {
  Result<Inventory> inventory =
      ParseClusterFile("nodes: [{name: a, cpus: 1, memory: 12GB}]", Catalog());
  ASSERT_FALSE(inventory.ok());
  ASSERT_EQ(inventory.status().violations().size(), 1u);
  EXPECT_NE(inventory.status().violations()[0].description.find("Mi/Gi/Ti"), std::string::npos);
  EXPECT_NE(inventory.status().violations()[0].description.find("12GB"), std::string::npos);
}

TEST(EmulationTest, AddsEveryCatalogAcceleratorAfterTheRealDevices) {
  Node node{.name = "localhost", .cpus = 8, .memory_mib = 1024, .devices = {}};
  node.devices.push_back({.index = 0, .accelerator = "NVIDIA_TESLA_T4", .model = "Tesla T4"});
  node.devices.push_back({.index = 1, .accelerator = "", .model = "NVIDIA GeForce RTX 4090"});

  const Node emulated = WithEmulatedAccelerators(node, Catalog(), 3);
  ASSERT_EQ(emulated.devices.size(), 2 + 3 * Catalog().accelerators().size());
  EXPECT_EQ(emulated.devices[0].model, "Tesla T4");
  EXPECT_FALSE(emulated.devices[0].emulated);
  for (std::size_t i = 2; i < emulated.devices.size(); ++i) {
    EXPECT_EQ(emulated.devices[i].index, static_cast<int>(i));
    EXPECT_TRUE(emulated.devices[i].emulated);
    EXPECT_EQ(emulated.devices[i].model, "emulated");
  }
  for (const catalog::Accelerator& accelerator : Catalog().accelerators()) {
    const int real = accelerator.name == "NVIDIA_TESLA_T4" ? 1 : 0;
    EXPECT_EQ(emulated.CountOf(accelerator.name), real + 3) << accelerator.name;
  }
  EXPECT_EQ(emulated.CountOf("TPU_V2"), 3);
  EXPECT_EQ(emulated.CountOf("TPU_V3"), 3);
}

TEST(EmulationTest, ZeroPerTypeChangesNothing) {
  const Node node{.name = "n", .cpus = 1, .memory_mib = 1, .devices = {}};
  EXPECT_TRUE(WithEmulatedAccelerators(node, Catalog(), 0).devices.empty());
}

}  // namespace
}  // namespace trainyard::sched
