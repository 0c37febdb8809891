// Place: gang, exclusive devices by index, strict/shared accounting, priority and FIFO, no
// head-of-line blocking, first fit over several nodes.
#include "sched/placement.h"

#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sched/inventory_builders.h"
#include "sched/test_catalog.h"

namespace trainyard::sched {
namespace {

using builders::Job;
using builders::kGib;
using builders::Labelled;
using builders::MakeNode;
using builders::Render;
using builders::Replica;
using builders::Replicas;
using builders::Selecting;

// An allocation of one replica holding `devices`, `cpus` and `memory_mib` on `node`.
Allocation Holding(std::string key, std::size_t node, std::vector<int> devices, int cpus = 0,
                   std::int64_t memory_mib = 0) {
  return Allocation{.key = std::move(key),
                    .replicas = {ReplicaAssignment{.task_name = "master-replica-0",
                                                   .node = node,
                                                   .device_indices = std::move(devices),
                                                   .cpus = cpus,
                                                   .memory_mib = memory_mib}}};
}

struct PlaceCase {
  std::string name;
  Inventory inventory;
  Accounting accounting = Accounting::kShared;
  std::vector<Allocation> running;
  std::vector<JobDemand> queue;
  std::string placed;  // Render() of the result
  friend void PrintTo(const PlaceCase& c, std::ostream* os) { *os << c.name; }
};

class PlaceTest : public ::testing::TestWithParam<PlaceCase> {};

TEST_P(PlaceTest, StartsTheExpectedJobsOnTheExpectedDevices) {
  const PlaceCase& c = GetParam();
  EXPECT_EQ(Render(Place(c.inventory, c.accounting, c.running, c.queue)), c.placed);
}

const Inventory kFourT4{{MakeNode("box", 16, 64 * kGib, {{kT4, 4}})}};

INSTANTIATE_TEST_SUITE_P(
    Policies, PlaceTest,
    ::testing::Values(
        PlaceCase{.name = "GangPlacesEveryReplica",
                  .inventory = kFourT4,
                  .queue = {Job("a", 0, 1, Replicas("w", 2, 1, kGib, kT4, 2))},
                  .placed = "a{w-0@0[0,1] w-1@0[2,3]}"},
        PlaceCase{.name = "GangPlacesNothingWhenOneReplicaDoesNotFit",
                  .inventory = kFourT4,
                  .queue = {Job("a", 0, 1, Replicas("w", 3, 1, kGib, kT4, 2))},
                  .placed = ""},
        PlaceCase{.name = "FailedGangHoldsNothingForLaterJobs",
                  .inventory = kFourT4,
                  .queue = {Job("a", 0, 1, Replicas("w", 3, 1, kGib, kT4, 2)),
                            Job("b", 0, 2, Replicas("w", 2, 1, kGib, kT4, 2))},
                  .placed = "b{w-0@0[0,1] w-1@0[2,3]}"},
        PlaceCase{.name = "DevicesOfRunningJobsAreNotShared",
                  .inventory = kFourT4,
                  .running = {Holding("r", 0, {0, 1, 2, 3})},
                  .queue = {Job("a", 0, 1, {Replica("m", 1, kGib, kT4, 1)})},
                  .placed = ""},
        PlaceCase{.name = "LowestFreeIndicesFirst",
                  .inventory = kFourT4,
                  .running = {Holding("r", 0, {0, 2})},
                  .queue = {Job("a", 0, 1, {Replica("m", 1, kGib, kT4, 2)})},
                  .placed = "a{m@0[1,3]}"},
        PlaceCase{.name = "OnlyDevicesOfTheRequestedType",
                  .inventory = {{MakeNode("box", 16, 64 * kGib, {{kT4, 2}, {kV100, 2}})}},
                  .queue = {Job("a", 0, 1, {Replica("m", 1, kGib, kV100, 2)})},
                  .placed = "a{m@0[2,3]}"},
        PlaceCase{.name = "JobsPlacedTogetherDoNotShareDevices",
                  .inventory = kFourT4,
                  .queue = {Job("a", 0, 1, {Replica("m", 1, kGib, kT4, 3)}),
                            Job("b", 0, 2, {Replica("m", 1, kGib, kT4, 1)}),
                            Job("c", 0, 3, {Replica("m", 1, kGib, kT4, 1)})},
                  .placed = "a{m@0[0,1,2]} b{m@0[3]}"},
        PlaceCase{.name = "HigherPriorityFirst",
                  .inventory = kFourT4,
                  .queue = {Job("low", 0, 1, {Replica("m", 1, kGib, kT4, 4)}),
                            Job("high", 10, 2, {Replica("m", 1, kGib, kT4, 4)})},
                  .placed = "high{m@0[0,1,2,3]}"},
        PlaceCase{.name = "ChosenInPriorityOrder",
                  .inventory = kFourT4,
                  .queue = {Job("low", 0, 1, {Replica("m", 1, kGib, kT4, 1)}),
                            Job("high", 10, 2, {Replica("m", 1, kGib, kT4, 1)})},
                  .placed = "high{m@0[0]} low{m@0[1]}"},
        PlaceCase{.name = "FifoAmongEqualPriorities",
                  .inventory = kFourT4,
                  .queue = {Job("second", 5, 2, {Replica("m", 1, kGib, kT4, 4)}),
                            Job("first", 5, 1, {Replica("m", 1, kGib, kT4, 4)})},
                  .placed = "first{m@0[0,1,2,3]}"},
        PlaceCase{.name = "NoHeadOfLineBlocking",
                  .inventory = kFourT4,
                  .running = {Holding("r", 0, {0, 1})},
                  .queue = {Job("big", 100, 1, {Replica("m", 1, kGib, kT4, 4)}),
                            Job("small", 0, 2, {Replica("m", 1, kGib, kT4, 2)}),
                            Job("cpu", 0, 3, {Replica("m", 1, kGib)})},
                  .placed = "small{m@0[2,3]} cpu{m@0[]}"},
        PlaceCase{.name = "StrictCountsRunningCpus",
                  .inventory = kFourT4,
                  .accounting = Accounting::kStrict,
                  .running = {Holding("r", 0, {}, 8, kGib)},
                  .queue = {Job("a", 0, 1, {Replica("m", 16, kGib)}),
                            Job("b", 0, 2, {Replica("m", 8, kGib)})},
                  .placed = "b{m@0[]}"},
        PlaceCase{.name = "SharedIgnoresCpus",
                  .inventory = kFourT4,
                  .running = {Holding("r", 0, {}, 8, kGib)},
                  .queue = {Job("a", 0, 1, {Replica("m", 64, kGib)})},
                  .placed = "a{m@0[]}"},
        PlaceCase{.name = "StrictCountsMemory",
                  .inventory = kFourT4,
                  .accounting = Accounting::kStrict,
                  .running = {Holding("r", 0, {}, 1, 40 * kGib)},
                  .queue = {Job("a", 0, 1, {Replica("m", 1, 30 * kGib)}),
                            Job("b", 0, 2, {Replica("m", 1, 24 * kGib)})},
                  .placed = "b{m@0[]}"},
        PlaceCase{.name = "SharedIgnoresMemory",
                  .inventory = kFourT4,
                  .running = {Holding("r", 0, {}, 1, 64 * kGib)},
                  .queue = {Job("a", 0, 1, {Replica("m", 1, 128 * kGib)})},
                  .placed = "a{m@0[]}"},
        PlaceCase{.name = "StrictCountsReplicasOfTheSameGang",
                  .inventory = kFourT4,
                  .accounting = Accounting::kStrict,
                  .queue = {Job("a", 0, 1, Replicas("w", 2, 10, kGib))},
                  .placed = ""},
        PlaceCase{.name = "StrictCountsJobsPlacedTogether",
                  .inventory = kFourT4,
                  .accounting = Accounting::kStrict,
                  .queue = {Job("a", 0, 1, {Replica("m", 10, kGib)}),
                            Job("b", 0, 2, {Replica("m", 10, kGib)})},
                  .placed = "a{m@0[]}"},
        PlaceCase{.name = "FirstFitOverNodesInOrder",
                  .inventory = {{MakeNode("a", 8, 8 * kGib, {{kT4, 2}}),
                                 MakeNode("b", 8, 8 * kGib, {{kT4, 4}})}},
                  .queue = {Job("j", 0, 1, Replicas("w", 3, 1, kGib, kT4, 2))},
                  .placed = "j{w-0@0[0,1] w-1@1[0,1] w-2@1[2,3]}"},
        PlaceCase{.name = "StrictSpillsToTheNextNode",
                  .inventory = {{MakeNode("a", 16, 64 * kGib), MakeNode("b", 16, 64 * kGib)}},
                  .accounting = Accounting::kStrict,
                  .queue = {Job("j", 0, 1, Replicas("w", 3, 8, kGib))},
                  .placed = "j{w-0@0[] w-1@0[] w-2@1[]}"},
        PlaceCase{.name = "AReplicasDevicesAreOnOneNode",
                  .inventory = {{MakeNode("a", 8, 8 * kGib, {{kT4, 2}}),
                                 MakeNode("b", 8, 8 * kGib, {{kT4, 2}})}},
                  .queue = {Job("j", 0, 1, {Replica("m", 1, kGib, kT4, 4)})},
                  .placed = ""},
        PlaceCase{.name = "RunningOnASecondNodeLeavesTheFirstFree",
                  .inventory = {{MakeNode("a", 8, 8 * kGib, {{kT4, 2}}),
                                 MakeNode("b", 8, 8 * kGib, {{kT4, 2}})}},
                  .running = {Holding("r", 1, {0, 1})},
                  .queue = {Job("j", 0, 1, {Replica("m", 1, kGib, kT4, 2)}),
                            Job("k", 0, 2, {Replica("m", 1, kGib, kT4, 1)})},
                  .placed = "j{m@0[0,1]}"},
        PlaceCase{.name = "RunningOnAVanishedNodeHoldsNothing",
                  .inventory = kFourT4,
                  .running = {Holding("r", 7, {0, 1, 2, 3})},
                  .queue = {Job("a", 0, 1, {Replica("m", 1, kGib, kT4, 4)})},
                  .placed = "a{m@0[0,1,2,3]}"},
        PlaceCase{.name = "UnknownDeviceModelsAreNeverGiven",
                  .inventory = {{MakeNode("box", 8, 8 * kGib, {{"", 2}})}},
                  .queue = {Job("a", 0, 1, {Replica("m", 1, kGib, kT4, 1)}),
                            Job("b", 0, 2, {Replica("m", 1, kGib)})},
                  .placed = "b{m@0[]}"},
        // A TFJob's nodeSelector (docs/reference/kubeflow-tfjob.md §8): only labelled nodes.
        PlaceCase{
            .name = "SelectorSkipsUnlabelledNodes",
            .inventory = {{MakeNode("a", 8, 8 * kGib, {{kT4, 4}}),
                           Labelled(MakeNode("b", 8, 8 * kGib, {{kT4, 4}}), {{"nvidia", "t4"}})}},
            .queue = {Job("j", 0, 1,
                          Selecting({Replica("w", 1, kGib, kT4, 1)}, {{"nvidia", "t4"}}))},
            .placed = "j{w@1[0]}"},
        PlaceCase{
            .name = "SelectorNeedsEveryLabel",
            .inventory = {{Labelled(MakeNode("a", 8, 8 * kGib), {{"nvidia", "t4"}}),
                           Labelled(MakeNode("b", 8, 8 * kGib),
                                    {{"nvidia", "t4"}, {"zone", "z1"}})}},
            .queue = {Job("j", 0, 1,
                          Selecting({Replica("w", 1, kGib)}, {{"nvidia", "t4"}, {"zone", "z1"}}))},
            .placed = "j{w@1[]}"},
        PlaceCase{.name = "SelectorValueMustBeEqual",
                  .inventory = {{Labelled(MakeNode("a", 8, 8 * kGib), {{"nvidia", "v100"}})}},
                  .queue = {Job("j", 0, 1, Selecting({Replica("w", 1, kGib)}, {{"nvidia", "t4"}}))},
                  .placed = ""},
        PlaceCase{
            .name = "TwoReplicasOfARoleOnTwoLabelledNodes",
            .inventory = {{Labelled(MakeNode("a", 8, 8 * kGib, {{kT4, 2}}), {{"nvidia", "t4"}}),
                           MakeNode("b", 8, 8 * kGib, {{kT4, 2}}),
                           Labelled(MakeNode("c", 8, 8 * kGib, {{kT4, 2}}), {{"nvidia", "t4"}})}},
            .queue = {Job("j", 0, 1,
                          Selecting(Replicas("w", 2, 1, kGib, kT4, 2), {{"nvidia", "t4"}}))},
            .placed = "j{w-0@0[0,1] w-1@2[0,1]}"},
        PlaceCase{
            .name = "GpusOnlyOnMatchingNodesCount",
            .inventory = {{MakeNode("a", 8, 8 * kGib, {{kT4, 4}}),
                           Labelled(MakeNode("b", 8, 8 * kGib, {{kT4, 2}}), {{"nvidia", "t4"}})}},
            .queue = {Job("j", 0, 1,
                          Selecting(Replicas("w", 2, 1, kGib, kT4, 2), {{"nvidia", "t4"}}))},
            .placed = ""},
        PlaceCase{
            .name = "RolesWithAndWithoutASelector",
            .inventory = {{Labelled(MakeNode("gpu", 8, 8 * kGib, {{kT4, 1}}), {{"nvidia", "t4"}}),
                           MakeNode("cpu", 8, 8 * kGib)}},
            .accounting = Accounting::kStrict,
            .queue = {Job("j", 0, 1,
                          {Selecting({Replica("w", 1, kGib, kT4, 1)}, {{"nvidia", "t4"}}).front(),
                           Replica("ps", 8, kGib)})},
            .placed = "j{w@0[0] ps@1[]}"},
        PlaceCase{.name = "NoNodesPlacesNothing",
                  .inventory = {},
                  .queue = {Job("a", 0, 1, {Replica("m", 1, kGib)})},
                  .placed = ""}),
    [](const auto& tc) { return tc.param.name; });

TEST(PlaceTest, AssignmentsCarryTheReplicasCpusAndMemory) {
  const std::vector<Allocation> placed =
      Place(kFourT4, Accounting::kStrict, {},
            {Job("a", 0, 1, {Replica("m", 6, 3 * kGib), Replica("w", 2, 5 * kGib, kT4, 1)})});
  ASSERT_EQ(placed.size(), 1u);
  ASSERT_EQ(placed[0].replicas.size(), 2u);
  EXPECT_EQ(placed[0].key, "a");
  EXPECT_EQ(placed[0].replicas[0].cpus, 6);
  EXPECT_EQ(placed[0].replicas[0].memory_mib, 3 * kGib);
  EXPECT_EQ(placed[0].replicas[1].cpus, 2);
  EXPECT_EQ(placed[0].replicas[1].memory_mib, 5 * kGib);
}

TEST(PlaceTest, AnAllocationFedBackAsRunningHoldsItsResources) {
  const std::vector<JobDemand> queue = {Job("a", 0, 1, {Replica("m", 10, kGib, kT4, 2)})};
  const std::vector<Allocation> first = Place(kFourT4, Accounting::kStrict, {}, queue);
  ASSERT_EQ(first.size(), 1u);
  // Same job again: the devices would fit (2 of 4 free) but the CPUs (10 + 10 > 16) do not.
  EXPECT_TRUE(Place(kFourT4, Accounting::kStrict, first, queue).empty());
  EXPECT_EQ(Render(Place(kFourT4, Accounting::kShared, first, queue)), "a{m@0[2,3]}");
}

}  // namespace
}  // namespace trainyard::sched
