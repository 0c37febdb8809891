// Room (sched/room.h): taking and giving back; Place's policies are placement_test.cc's.
#include "sched/room.h"

#include <gtest/gtest.h>

#include "sched/inventory_builders.h"
#include "sched/test_catalog.h"

namespace trainyard::sched {
namespace {

using builders::kGib;
using builders::MakeNode;
using builders::Replica;
using builders::Replicas;

const Inventory kRoomBox{{MakeNode("box", 16, 64 * kGib, {{kT4, 2}})}};

Allocation RoomHolding(std::vector<int> devices) {
  return {.key = "r", .replicas = {{.task_name = "m", .node = 0, .device_indices = devices}}};
}

TEST(Room, ADeviceHeldTwiceStaysBusyUntilBothGiveItBack) {
  Room room(kRoomBox, Accounting::kShared, {RoomHolding({0}), RoomHolding({0})});
  EXPECT_EQ(room.FreeOf(kT4), 1);
  room.Give(RoomHolding({0}));
  EXPECT_EQ(room.FreeOf(kT4), 1);
  room.Give(RoomHolding({0}));
  EXPECT_EQ(room.FreeOf(kT4), 2);
  EXPECT_EQ(room.TotalOf(kT4), 2);
}

TEST(Room, AGangThatDoesNotFitTakesNothing) {
  Room room(kRoomBox, Accounting::kShared);
  const JobDemand three{.key = "a", .replicas = Replicas("w", 3, 1, kGib, kT4, 1)};
  EXPECT_FALSE(room.TryTake(three));
  EXPECT_EQ(room.FreeOf(kT4), 2);
  const JobDemand two{.key = "b", .replicas = Replicas("w", 2, 1, kGib, kT4, 1)};
  EXPECT_TRUE(room.Fits(two));
  EXPECT_EQ(room.FreeOf(kT4), 2);
  EXPECT_TRUE(room.TryTake(two));
  EXPECT_EQ(room.FreeOf(kT4), 0);
}

TEST(Room, StrictAccountingCountsCpusOfWhatIsTaken) {
  Room room(kRoomBox, Accounting::kStrict);
  const JobDemand big{.key = "a", .replicas = {Replica("m", 12, kGib)}};
  EXPECT_TRUE(room.TryTake(big));
  EXPECT_FALSE(room.Fits(big));
}

}  // namespace
}  // namespace trainyard::sched
