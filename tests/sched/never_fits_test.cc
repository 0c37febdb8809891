// NeverFits: the sentence a job that can never start is FAILED with, and emulation making the
// GPU seed's job fit a machine without GPUs.
#include <algorithm>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "sched/inventory.h"
#include "sched/inventory_builders.h"
#include "sched/placement.h"
#include "sched/test_catalog.h"

namespace trainyard::sched {
namespace {

using builders::Job;
using builders::kGib;
using builders::Labelled;
using builders::MakeNode;
using builders::Replica;
using builders::Replicas;
using builders::Selecting;

ReplicaDemand Demand(std::string task, std::string_view machine_type,
                     std::string_view accelerator = "", int count = 0) {
  Result<ReplicaDemand> demand =
      DemandOf(std::move(task), machine_type, accelerator, count, Catalog());
  EXPECT_TRUE(demand.ok()) << demand.status().ToString();
  return demand.ok() ? *demand : ReplicaDemand{};
}

// The GPU seed's config.yaml: a master and 9 workers on n1-highcpu-16 with 4 × T4 each, and 3
// parameter servers on n1-highmem-8; or its legacy twin (complex_model_m_gpu, large_model).
JobDemand SeedJob(bool legacy = false) {
  JobDemand job = Job("p/seed", 0, 1, {});
  const auto add = [&](const std::string& task, std::string_view type, int count) {
    job.replicas.push_back(legacy ? Demand(task, type) : Demand(task, type, kT4, count));
  };
  add("master-replica-0", legacy ? "complex_model_m_gpu" : "n1-highcpu-16", 4);
  for (int i = 0; i < 9; ++i) {
    add("worker-replica-" + std::to_string(i), legacy ? "complex_model_m_gpu" : "n1-highcpu-16", 4);
  }
  for (int i = 0; i < 3; ++i) {
    job.replicas.push_back(
        Demand("ps-replica-" + std::to_string(i), legacy ? "large_model" : "n1-highmem-8"));
  }
  return job;
}

const Inventory kWorkstation{{MakeNode("localhost", 8, 31 * kGib)}};

struct NeverFitsCase {
  std::string name;
  Inventory inventory;
  Accounting accounting = Accounting::kShared;
  JobDemand job;
  std::optional<std::string> message;  // nullopt: fits
  friend void PrintTo(const NeverFitsCase& c, std::ostream* os) { *os << c.name; }
};

class NeverFitsTest : public ::testing::TestWithParam<NeverFitsCase> {};

TEST_P(NeverFitsTest, SaysWhatIsMissing) {
  const NeverFitsCase& c = GetParam();
  EXPECT_EQ(NeverFits(c.inventory, c.accounting, c.job), c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Messages, NeverFitsTest,
    ::testing::Values(
        NeverFitsCase{"SeedJobWithoutT4", kWorkstation, Accounting::kShared, SeedJob(),
                      "needs 40 × NVIDIA_TESLA_T4 (4 per replica); the largest node has 0."},
        NeverFitsCase{"SeedJobWithoutT4Strict", kWorkstation, Accounting::kStrict, SeedJob(),
                      "needs 40 × NVIDIA_TESLA_T4 (4 per replica); the largest node has 0."},
        NeverFitsCase{"LegacySeedJobWithoutK80", kWorkstation, Accounting::kShared, SeedJob(true),
                      "needs 40 × NVIDIA_TESLA_K80 (4 per replica); the largest node has 0."},
        NeverFitsCase{
            "LargestNodeHasTooFew",
            {{MakeNode("a", 8, 8 * kGib, {{kT4, 2}}), MakeNode("b", 8, 8 * kGib, {{kT4, 3}})}},
            Accounting::kShared,
            Job("j", 0, 1, Replicas("w", 2, 1, kGib, kT4, 4)),
            "needs 8 × NVIDIA_TESLA_T4 (4 per replica); the largest node has 3."},
        NeverFitsCase{
            "MixedCountsNameTheReplica",
            {{MakeNode("a", 8, 8 * kGib, {{kT4, 2}})}},
            Accounting::kShared,
            Job("j", 0, 1, {Replica("m", 1, kGib, kT4, 2), Replica("w", 1, kGib, kT4, 4)}),
            "needs 6 × NVIDIA_TESLA_T4 (4 for w); the largest node has 2."},
        NeverFitsCase{"StrictCpus", kWorkstation, Accounting::kStrict,
                      Job("j", 0, 1, {Demand("master-replica-0", "n1-highcpu-16")}),
                      "needs 16 vCPUs per replica (n1-highcpu-16); the largest node has 8."},
        NeverFitsCase{"SharedIgnoresCpus", kWorkstation, Accounting::kShared,
                      Job("j", 0, 1, {Demand("master-replica-0", "n1-highcpu-16")}), std::nullopt},
        NeverFitsCase{"StrictMemory",
                      {{MakeNode("localhost", 32, 31 * kGib)}},
                      Accounting::kStrict,
                      Job("j", 0, 1, {Demand("master-replica-0", "n1-standard-16")}),
                      "needs 60 GiB of memory per replica; the largest node has 31 GiB."},
        NeverFitsCase{"StrictMemoryInFractions",
                      {{MakeNode("localhost", 32, 14000)}},
                      Accounting::kStrict,
                      Job("j", 0, 1, {Demand("master-replica-0", "n1-highcpu-16")}),
                      "needs 14.4 GiB of memory per replica; the largest node has 13.7 GiB."},
        NeverFitsCase{"StrictMemoryCloseCallInMib",
                      {{MakeNode("localhost", 32, 14740)}},
                      Accounting::kStrict,
                      Job("j", 0, 1, {Demand("master-replica-0", "n1-highcpu-16")}),
                      "needs 14746 MiB of memory per replica; the largest node has 14740 MiB."},
        NeverFitsCase{
            "NoNodeHasEverythingAtOnce",
            {{MakeNode("gpus", 4, 64 * kGib, {{kT4, 4}}), MakeNode("cpus", 32, 64 * kGib)}},
            Accounting::kStrict,
            Job("j", 0, 1, {Demand("master-replica-0", "n1-highcpu-16", kT4, 4)}),
            "needs 4 × NVIDIA_TESLA_T4, 16 vCPUs, 14.4 GiB of memory on one node for "
            "master-replica-0; no node has all of that."},
        NeverFitsCase{
            "GangExceedsTheAccelerators",
            {{MakeNode("a", 64, 64 * kGib, {{kT4, 4}}), MakeNode("b", 64, 64 * kGib, {{kT4, 4}})}},
            Accounting::kShared,
            Job("j", 0, 1, Replicas("w", 10, 1, kGib, kT4, 4)),
            "needs 10 replicas with 4 × NVIDIA_TESLA_T4 each; the inventory has 8 × "
            "NVIDIA_TESLA_T4 in all."},
        NeverFitsCase{"GangExceedsTheCpus",
                      {{MakeNode("a", 8, 64 * kGib), MakeNode("b", 8, 64 * kGib)}},
                      Accounting::kStrict,
                      Job("j", 0, 1, Replicas("w", 3, 8, kGib)),
                      "needs 24 vCPUs for 3 replicas; the inventory has 16 in all."},
        NeverFitsCase{"GangExceedsTheMemory",
                      {{MakeNode("a", 64, 16 * kGib)}},
                      Accounting::kStrict,
                      Job("j", 0, 1, Replicas("w", 2, 1, 10 * kGib)),
                      "needs 20 GiB of memory for 2 replicas; the inventory has 16 GiB in all."},
        NeverFitsCase{"GangFragmentedAcrossNodes",
                      {{MakeNode("a", 12, 64 * kGib), MakeNode("b", 12, 64 * kGib)}},
                      Accounting::kStrict,
                      Job("j", 0, 1, Replicas("w", 3, 8, kGib)),
                      "needs 3 replicas at once; only the first 2 fit on the inventory's 2 nodes "
                      "together."},
        NeverFitsCase{"NoNodes", Inventory{}, Accounting::kShared,
                      Job("j", 0, 1, {Replica("m", 1, kGib)}),
                      "needs 1 replica; the inventory has no nodes."},
        NeverFitsCase{
            "NoNodeHasTheSelectorsLabel",
            {{Labelled(MakeNode("a", 8, 8 * kGib, {{kT4, 4}}), {{"nvidia", "v100"}}),
              MakeNode("b", 8, 8 * kGib, {{kT4, 4}}), MakeNode("c", 8, 8 * kGib)}},
            Accounting::kShared,
            Job("j", 0, 1,
                Selecting(Replicas("worker-replica", 2, 1, kGib, kT4, 1), {{"nvidia", "t4"}})),
            "needs a node labelled nvidia=t4 for worker-replica-0 (its nodeSelector), "
            "and no node is: a has nvidia=v100; b, c have no nvidia label."},
        NeverFitsCase{
            "NoNodeHasEveryLabelOfTheSelector",
            {{Labelled(MakeNode("a", 8, 8 * kGib), {{"nvidia", "t4"}}),
              MakeNode("b", 8, 8 * kGib)}},
            Accounting::kShared,
            Job("j", 0, 1, Selecting({Replica("w", 1, kGib)}, {{"nvidia", "t4"}, {"zone", "z1"}})),
            "needs a node labelled nvidia=t4, zone=z1 for w (its nodeSelector), and no "
            "node is: a has nvidia=t4 and no zone label; b has no nvidia, zone labels."},
        NeverFitsCase{
            "ManyNodesWithoutTheLabelAreCounted",
            {{MakeNode("n1", 8, 8 * kGib), MakeNode("n2", 8, 8 * kGib), MakeNode("n3", 8, 8 * kGib),
              MakeNode("n4", 8, 8 * kGib), MakeNode("n5", 8, 8 * kGib)}},
            Accounting::kShared,
            Job("j", 0, 1, Selecting({Replica("w", 1, kGib)}, {{"nvidia", "t4"}})),
            "needs a node labelled nvidia=t4 for w (its nodeSelector), and no node is: "
            "n1, n2, n3 and 2 more have no nvidia label."},
        NeverFitsCase{"ManyDifferentValuesAreCounted",
                      {{Labelled(MakeNode("n1", 8, 8 * kGib), {{"rack", "r1"}}),
                        Labelled(MakeNode("n2", 8, 8 * kGib), {{"rack", "r2"}}),
                        Labelled(MakeNode("n3", 8, 8 * kGib), {{"rack", "r3"}}),
                        Labelled(MakeNode("n4", 8, 8 * kGib), {{"rack", "r4"}}),
                        Labelled(MakeNode("n5", 8, 8 * kGib), {{"rack", "r5"}})}},
                      Accounting::kShared,
                      Job("j", 0, 1, Selecting({Replica("w", 1, kGib)}, {{"rack", "r9"}})),
                      "needs a node labelled rack=r9 for w (its nodeSelector), and no node is: "
                      "n1 has rack=r1; n2 has rack=r2; n3 has rack=r3; 2 more nodes have other "
                      "values."},
        NeverFitsCase{
            "GpusCountOnlyOnTheSelectedNodes",
            {{MakeNode("a", 8, 8 * kGib, {{kT4, 8}}),
              Labelled(MakeNode("b", 8, 8 * kGib, {{kT4, 2}}), {{"nvidia", "t4"}})}},
            Accounting::kShared,
            Job("j", 0, 1, Selecting(Replicas("w", 2, 1, kGib, kT4, 4), {{"nvidia", "t4"}})),
            "needs 8 × NVIDIA_TESLA_T4 (4 per replica); the largest node labelled "
            "nvidia=t4 has 2."},
        NeverFitsCase{
            "GangCountsOnlyTheSelectedNodes",
            {{MakeNode("a", 8, 8 * kGib, {{kT4, 8}}),
              Labelled(MakeNode("b", 8, 8 * kGib, {{kT4, 2}}), {{"nvidia", "t4"}}),
              Labelled(MakeNode("c", 8, 8 * kGib, {{kT4, 2}}), {{"nvidia", "t4"}})}},
            Accounting::kShared,
            Job("j", 0, 1, Selecting(Replicas("w", 3, 1, kGib, kT4, 2), {{"nvidia", "t4"}})),
            "needs 3 replicas with 2 × NVIDIA_TESLA_T4 each; the nodes labelled "
            "nvidia=t4 have 4 × NVIDIA_TESLA_T4 in all."},
        NeverFitsCase{"StrictCpusOnTheSelectedNodes",
                      {{MakeNode("big", 64, 64 * kGib),
                        Labelled(MakeNode("small", 8, 64 * kGib), {{"nvidia", "t4"}})}},
                      Accounting::kStrict,
                      Job("j", 0, 1, Selecting({Replica("w", 16, kGib)}, {{"nvidia", "t4"}})),
                      "needs 16 vCPUs per replica (test-machine); the largest node labelled "
                      "nvidia=t4 has 8."},
        NeverFitsCase{"StrictGangCpusOnTheSelectedNodes",
                      {{MakeNode("big", 64, 64 * kGib),
                        Labelled(MakeNode("small", 8, 64 * kGib), {{"nvidia", "t4"}})}},
                      Accounting::kStrict,
                      Job("j", 0, 1,
                          {Replica("ps", 32, kGib),
                           Selecting(Replicas("w", 2, 6, kGib), {{"nvidia", "t4"}})[0],
                           Selecting(Replicas("w", 2, 6, kGib), {{"nvidia", "t4"}})[1]}),
                      "needs 12 vCPUs for 2 replicas; the nodes labelled nvidia=t4 have 8 in all."},
        NeverFitsCase{
            "FitsTheSelectedNode",
            {{MakeNode("a", 8, 8 * kGib),
              Labelled(MakeNode("b", 8, 8 * kGib, {{kT4, 2}}), {{"nvidia", "t4"}})}},
            Accounting::kShared,
            Job("j", 0, 1, Selecting(Replicas("w", 2, 1, kGib, kT4, 1), {{"nvidia", "t4"}})),
            std::nullopt},
        NeverFitsCase{"FitsAnEmptyInventory",
                      {{MakeNode("box", 16, 64 * kGib, {{kT4, 4}})}},
                      Accounting::kStrict,
                      Job("j", 0, 1, Replicas("w", 2, 4, kGib, kT4, 2)),
                      std::nullopt}),
    [](const auto& tc) { return tc.param.name; });

TEST(NeverFitsTest, EmulatedT4sLetTheSeedJobFitAWorkstation) {
  const Node node = WithEmulatedAccelerators(kWorkstation.nodes[0], Catalog(), 40);
  const Inventory inventory{{node}};
  ASSERT_EQ(NeverFits(inventory, Accounting::kShared, SeedJob()), std::nullopt);

  const std::vector<Allocation> placed = Place(inventory, Accounting::kShared, {}, {SeedJob()});
  ASSERT_EQ(placed.size(), 1u);
  ASSERT_EQ(placed[0].replicas.size(), 13u);
  std::set<int> given;
  for (const ReplicaAssignment& replica : placed[0].replicas) {
    for (int index : replica.device_indices) {
      EXPECT_TRUE(given.insert(index).second) << "device " << index << " given twice";
      const auto device = std::ranges::find(node.devices, index, &Device::index);
      ASSERT_NE(device, node.devices.end());
      EXPECT_EQ(device->accelerator, kT4);
      EXPECT_TRUE(device->emulated);
    }
  }
  EXPECT_EQ(given.size(), 40u);
}

TEST(NeverFitsTest, TooFewEmulatedDevicesStillNeverFit) {
  const Inventory inventory{{WithEmulatedAccelerators(kWorkstation.nodes[0], Catalog(), 8)}};
  EXPECT_EQ(NeverFits(inventory, Accounting::kShared, SeedJob()),
            "needs 10 replicas with 4 × NVIDIA_TESLA_T4 each; the inventory has 8 × "
            "NVIDIA_TESLA_T4 in all.");
}

}  // namespace
}  // namespace trainyard::sched
