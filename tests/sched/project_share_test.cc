// A project's standing (issue #34): what it borrows beyond its quota and its dominant share,
// as the sharing pass counts them (sched/project_share.h).
#include "sched/project_share.h"

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sched/inventory_builders.h"
#include "sched/test_catalog.h"

namespace trainyard::sched {

// gtest's words for an Amounts that differs.
void PrintTo(const Amounts& amounts, std::ostream* out) {
  *out << "{devices:";
  for (const auto& [type, count] : amounts.devices) {
    *out << " " << type << "=" << count;
  }
  *out << ", cpus: " << amounts.cpus << ", memory_mib: " << amounts.memory_mib
       << ", jobs: " << amounts.jobs << "}";
}

namespace {

using builders::kGib;

// 4 T4s and 2 V100s, 64 vCPUs, 256 GiB.
Amounts StandingCapacity() {
  Inventory inventory;
  inventory.nodes = {builders::MakeNode("a", 32, 128 * kGib, {{kT4, 4}}),
                     builders::MakeNode("b", 32, 128 * kGib, {{kV100, 2}})};
  return CapacityOf(inventory);
}

ProjectQuota StandingQuota() {
  return {.project = "p",
          .accelerators = {{kT4, 2}, {kV100, 0}},
          .cpus = 16,
          .memory_mib = 64 * kGib,
          .jobs = 3,
          .weight = 2};
}

struct StandingCase {
  std::string name;
  Amounts use;
  std::optional<ProjectQuota> quota;
  Accounting accounting = Accounting::kShared;
  Amounts borrowed;
  double share = 0;
  int weight = 1;
};

TEST(ProjectShareTest, BorrowedIsTheUseBeyondEachLimitAndShareTheDominantFraction) {
  ProjectQuota unweighted = StandingQuota();
  unweighted.weight = 0;  // a policy never holds it; counted as 1
  const std::vector<StandingCase> cases = {
      {"nothing held", {}, StandingQuota(), Accounting::kShared, {}, 0, 2},
      {"within every limit",
       {.devices = {{kT4, 2}}, .cpus = 16, .memory_mib = 64 * kGib, .jobs = 3},
       StandingQuota(),
       Accounting::kShared,
       {},
       0.5,
       2},
      {"devices beyond the limit of their type",
       {.devices = {{kT4, 3}, {kV100, 1}}, .jobs = 2},
       StandingQuota(),
       Accounting::kShared,
       {.devices = {{kT4, 1}, {kV100, 1}}},
       0.75,
       2},
      {"vCPUs and memory beyond their limits",
       {.cpus = 20, .memory_mib = 100 * kGib, .jobs = 1},
       StandingQuota(),
       Accounting::kShared,
       {.cpus = 4, .memory_mib = 36 * kGib},
       0,
       2},
      {"jobs are never borrowed", {.jobs = 9}, StandingQuota(), Accounting::kShared, {}, 0, 2},
      {"a type the quota does not name is not limited",
       {.devices = {{"NVIDIA_L4", 5}}},
       StandingQuota(),
       Accounting::kShared,
       {},
       0,
       2},
      {"no quota: no limits, weight 1",
       {.devices = {{kT4, 4}}, .cpus = 64, .jobs = 4},
       std::nullopt,
       Accounting::kShared,
       {},
       1,
       1},
      {"strict: vCPUs count when they dominate",
       {.devices = {{kT4, 1}}, .cpus = 48, .memory_mib = 64 * kGib},
       std::nullopt,
       Accounting::kStrict,
       {},
       0.75,
       1},
      {"strict: memory counts when it dominates",
       {.devices = {{kV100, 1}}, .cpus = 8, .memory_mib = 192 * kGib},
       std::nullopt,
       Accounting::kStrict,
       {},
       0.75,
       1},
      {"shared: vCPUs and memory do not count",
       {.devices = {{kV100, 1}}, .cpus = 48, .memory_mib = 192 * kGib},
       std::nullopt,
       Accounting::kShared,
       {},
       0.5,
       1},
      {"a weight below 1 counts as 1", {}, unweighted, Accounting::kShared, {}, 0, 1},
  };
  const Amounts capacity = StandingCapacity();
  for (const StandingCase& c : cases) {
    const ProjectShare got =
        ShareOfProject(c.use, c.quota ? &*c.quota : nullptr, capacity, c.accounting);
    EXPECT_EQ(got.borrowed, c.borrowed) << c.name;
    EXPECT_DOUBLE_EQ(got.share, c.share) << c.name;
    EXPECT_EQ(got.weight, c.weight) << c.name;
  }
}

TEST(ProjectShareTest, TheOrderComparesTheShareOverTheWeight) {
  const ProjectQuota quota = StandingQuota();
  const ProjectShare standing =
      ShareOfProject({.devices = {{kT4, 3}}}, &quota, StandingCapacity(), Accounting::kShared);
  EXPECT_DOUBLE_EQ(standing.Weighted(standing.share), 0.375);
  EXPECT_DOUBLE_EQ(standing.Weighted(10), 5);
}

TEST(ProjectShareTest, CapacityCountsEveryNodesDevicesByTypeVcpusAndMemory) {
  EXPECT_EQ(StandingCapacity(),
            (Amounts{.devices = {{kT4, 4}, {kV100, 2}}, .cpus = 64, .memory_mib = 256 * kGib}));
  EXPECT_EQ(CapacityOf(Inventory{}), Amounts{});
}

}  // namespace
}  // namespace trainyard::sched
