// Recent usage (sched/recent_usage.h), one row per rule: counting device-time, the daily decay,
// what a restarted server takes back (decayed for the time it was down), and when a write is due.
#include "sched/recent_usage.h"

#include <chrono>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/time_format.h"
#include "sched/inventory_builders.h"

namespace trainyard::sched {
namespace {

using builders::kGib;
using builders::MakeNode;
using std::chrono::hours;
using std::chrono::seconds;
using UsageBy = std::map<std::string, double, std::less<>>;

const WallTime kCounted = *ParseTimestamp("2026-01-01T00:00:00Z");

// An allocation of `key` holding `devices` devices on node 0.
Allocation Holding(std::string key, int devices) {
  ReplicaAssignment replica{.task_name = "master-replica-0"};
  for (int i = 0; i < devices; ++i) {
    replica.device_indices.push_back(i);
  }
  return Allocation{.key = std::move(key), .replicas = {replica}};
}

void ExpectUsage(const UsageBy& got, const UsageBy& want) {
  ASSERT_EQ(got.size(), want.size());
  for (const auto& [project, used] : want) {
    ASSERT_TRUE(got.contains(project)) << project;
    EXPECT_NEAR(got.at(project), used, 1e-6) << project;
  }
}

TEST(RecentUsageTest, CountsDeviceTimeOverTheInventoryAndDecaysItDaily) {
  const Inventory four{.nodes = {MakeNode("n", 8, 32 * kGib, {{"NVIDIA_TESLA_T4", 4}})}};
  const Inventory none{.nodes = {MakeNode("n", 8, 32 * kGib)}};
  struct Row {
    const char* name;
    const Inventory* inventory;
    RecentUsage before;
    std::vector<Allocation> running;
    WallTime now;
    bool added;
    UsageBy after;
  };
  const std::vector<Row> rows = {
      {"the first count only starts the clock",
       &four,
       {},
       {Holding("a/j", 4)},
       kCounted,
       false,
       {}},
      {"2 of 4 devices for 100 s is 50 s of the inventory",
       &four,
       {.counted = kCounted},
       {Holding("a/j", 2)},
       kCounted + seconds(100),
       true,
       {{"a", 50}}},
      {"the project is the key's part before its first '/', trials included",
       &four,
       {.counted = kCounted},
       {Holding("a/study/trial-1", 1), Holding("b/j", 1)},
       kCounted + seconds(400),
       true,
       {{"a", 100}, {"b", 100}}},
      {"a day halves what was counted before",
       &four,
       {.seconds = {{"a", 80}}, .counted = kCounted},
       {},
       kCounted + hours(24),
       false,
       {{"a", 40}}},
      {"an allocation without devices adds nothing",
       &four,
       {.seconds = {{"a", 8}}, .counted = kCounted},
       {Holding("b/j", 0)},
       kCounted + seconds(10),
       false,
       {{"a", 8 * std::exp2(-10.0 / (24 * 3600))}}},
      {"an inventory without devices counts nothing",
       &none,
       {.counted = kCounted},
       {Holding("a/j", 1)},
       kCounted + seconds(10),
       false,
       {}},
      {"a clock that went back counts and decays nothing",
       &four,
       {.seconds = {{"a", 8}}, .counted = kCounted},
       {Holding("a/j", 4)},
       kCounted - seconds(10),
       false,
       {{"a", 8}}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    RecentUsage usage = row.before;
    EXPECT_EQ(CountUsage(usage, *row.inventory, row.running, row.now), row.added);
    ExpectUsage(usage.seconds, row.after);
    EXPECT_EQ(usage.counted, row.now);
  }
}

TEST(RecentUsageTest, ARestoredRecordIsDecayedForTheTimeTheServerWasDown) {
  struct Row {
    const char* name;
    RecentUsage saved;
    WallTime now;
    UsageBy restored;
  };
  const std::vector<Row> rows = {
      {"restarted at once: as saved",
       {{{"a", 90}, {"b", 10}}, kCounted},
       kCounted,
       {{"a", 90}, {"b", 10}}},
      {"down for a day: halved",
       {{{"a", 90}, {"b", 10}}, kCounted},
       kCounted + hours(24),
       {{"a", 45}, {"b", 5}}},
      {"down for two days: a quarter", {{{"a", 80}}, kCounted}, kCounted + hours(48), {{"a", 20}}},
      {"the order of projects outlives the decay",
       {{{"a", 2}, {"b", 1}}, kCounted},
       kCounted + hours(24 * 10),
       {{"a", 2.0 / 1024}, {"b", 1.0 / 1024}}},
      {"decayed to nothing: forgotten", {{{"a", 1}}, kCounted}, kCounted + hours(24 * 20), {}},
      {"saved in the future (the clock went back): as saved",
       {{{"a", 7}}, kCounted + hours(1)},
       kCounted,
       {{"a", 7}}},
      {"a record without its time: nothing is known", {{{"a", 7}}, std::nullopt}, kCounted, {}},
      {"nothing saved", {}, kCounted, {}},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    const RecentUsage restored = RestoreUsage(row.saved, row.now);
    ExpectUsage(restored.seconds, row.restored);
    // The time down is nobody's use: counting starts at the restart.
    EXPECT_EQ(restored.counted, row.now);
  }
}

TEST(RecentUsageTest, AWriteIsDueOnlyForCountedUseAndAtMostOnceAnInterval) {
  const seconds interval(60);
  struct Row {
    const char* name;
    bool changed;
    std::optional<WallTime> last_attempt;
    WallTime now;
    bool due;
  };
  const std::vector<Row> rows = {
      {"nothing counted since the last write", false, std::nullopt, kCounted, false},
      {"counted, never written", true, std::nullopt, kCounted, true},
      {"counted, written just now", true, kCounted, kCounted + seconds(1), false},
      {"counted, written an interval ago", true, kCounted, kCounted + interval, true},
      {"decay alone is not worth a write", false, kCounted, kCounted + hours(5), false},
      {"the clock went back", true, kCounted, kCounted - seconds(1), true},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.name);
    EXPECT_EQ(UsageWriteDue(row.changed, row.last_attempt, row.now, interval), row.due);
  }
}

}  // namespace
}  // namespace trainyard::sched
