// WaitReason: the sentence the cluster view gives a queued job, counting the free devices of each
// accelerator it needs from what running jobs hold.
#include "sched/wait_reason.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sched/inventory_builders.h"
#include "sched/test_catalog.h"

namespace trainyard::sched {
namespace {

using builders::Job;
using builders::kGib;
using builders::MakeNode;
using builders::Replica;
using builders::Replicas;

struct Case {
  std::string name;
  std::vector<Allocation> running;
  JobDemand job;
  std::string reason;
};

TEST(WaitReason, NamesWhatTheJobNeedsAndWhatIsFree) {
  // Node 0: T4 at 0 and 1, a V100 at 2; node 1: two T4s at 0 and 1.
  const Inventory inventory{.nodes = {MakeNode("a", 8, 32 * kGib, {{kT4, 2}, {kV100, 1}}),
                                      MakeNode("b", 8, 32 * kGib, {{kT4, 2}})}};
  const Allocation holding_three_t4s{
      .key = "p/other",
      .replicas = {{.task_name = "m", .node = 0, .device_indices = {0, 1}},
                   {.task_name = "w", .node = 1, .device_indices = {1}}}};
  const std::vector<Case> cases = {
      {"one replica, nothing held",
       {},
       Job("p/j", 0, 1, {Replica("m", 4, kGib, kT4, 4)}),
       "Waiting for room: its replica needs 4 × NVIDIA_TESLA_T4 (4 of 4 free)."},
      {"devices held on both nodes count",
       {holding_three_t4s},
       Job("p/j", 0, 1, {Replica("m", 4, kGib, kT4, 2)}),
       "Waiting for room: its replica needs 2 × NVIDIA_TESLA_T4 (1 of 4 free)."},
      {"several replicas and types",
       {holding_three_t4s},
       Job("p/j", 0, 1, {Replica("m", 4, kGib, kV100, 1), Replica("w", 4, kGib, kT4, 2)}),
       "Waiting for room: its 2 replicas need 2 × NVIDIA_TESLA_T4 (1 of 4 free), 1 × "
       "NVIDIA_TESLA_V100 (1 of 1 free) at once."},
      {"a type the cluster lacks has no count",
       {},
       Job("p/j", 0, 1, {Replica("m", 4, kGib, "TPU_V3", 8)}),
       "Waiting for room: its replica needs 8 × TPU_V3."},
      {"CPU only",
       {},
       Job("p/j", 0, 1, Replicas("w", 3, 16, kGib)),
       "Waiting for room: its 3 replicas need 48 vCPUs at once."},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(WaitReason(inventory, c.running, c.job), c.reason) << c.name;
  }
}

}  // namespace
}  // namespace trainyard::sched
