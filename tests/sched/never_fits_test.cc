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

namespace trainyard::sched {
namespace {

using builders::Job;
using builders::kGib;
using builders::MakeNode;
using builders::Replica;
using builders::Replicas;

constexpr char kT4[] = "NVIDIA_TESLA_T4";

const catalog::Catalog& Catalog() {
  return catalog::Catalog::Builtin();
}

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
