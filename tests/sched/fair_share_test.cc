// Share (sched/fair_share.h), one row per rule: quota admission, borrowing, reclaim, DRF order with
// weights, the reservation and backfill, victim choice, the opt-out label and the wait reasons.
// Each row: an inventory, what runs, the queue and the policy in; what starts, what is preempted
// and why each other job waits out, as text.
#include "sched/fair_share.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "base/time_format.h"
#include "sched/inventory_builders.h"
#include "sched/test_catalog.h"

namespace trainyard::sched {
namespace {

using builders::kGib;
using builders::MakeNode;
using builders::Render;
using builders::Replica;
using std::chrono::seconds;

const WallTime kNow = *ParseTimestamp("2026-01-01T00:00:00Z");

// A running job holding `devices` of node `node` (one replica), started `age` ago.
RunningJob Running(std::string key, std::vector<int> devices, seconds age = seconds(0),
                   std::optional<seconds> max_running = std::nullopt, int priority = 0,
                   std::size_t node = 0) {
  return RunningJob{
      .allocation =
          Allocation{.key = std::move(key),
                     .replicas = {ReplicaAssignment{.task_name = "master-replica-0",
                                                    .node = node,
                                                    .device_indices = std::move(devices)}}},
      .priority = priority,
      .start = kNow - age,
      .max_running_time = max_running};
}

RunningJob Priority(RunningJob job, int priority) {
  job.priority = priority;
  return job;
}
RunningJob NotPreemptible(RunningJob job) {
  job.preemptible = false;
  return job;
}
RunningJob Stopping(RunningJob job) {
  job.allocation.stopping = true;
  return job;
}

// A queued job of one replica asking for `t4s` × T4.
JobDemand Queued(std::string key, int t4s, std::int64_t sequence, int priority = 0,
                 std::optional<seconds> max_running = std::nullopt) {
  JobDemand job{.key = std::move(key),
                .priority = priority,
                .sequence = sequence,
                .replicas = {Replica("master-replica-0", 1, kGib, kT4, t4s)}};
  job.max_running_time = max_running;
  return job;
}

JobDemand Head(JobDemand job) {
  job.head = true;
  return job;
}

ProjectQuota Quota(std::string project, std::optional<int> t4s, int weight = 1,
                   std::optional<int> jobs = std::nullopt) {
  ProjectQuota quota{.project = std::move(project), .jobs = jobs, .weight = weight};
  if (t4s) {
    quota.accelerators[kT4] = *t4s;
  }
  return quota;
}

struct ShareCase {
  std::string name;
  Inventory inventory;
  std::vector<RunningJob> running;
  std::vector<JobDemand> queue;
  std::optional<SharingPolicy> policy;
  std::optional<std::map<std::string, double, std::less<>>> usage = std::nullopt;
  Accounting accounting = Accounting::kShared;
  std::string started;                 // Render() of what starts
  std::vector<std::string> preempted;  // "victim by job: message"
  std::vector<std::string> waiting;    // "key: reason", in the queue's order
  friend void PrintTo(const ShareCase& c, std::ostream* os) { *os << c.name; }
};

class ShareTest : public ::testing::TestWithParam<ShareCase> {};

TEST_P(ShareTest, DecidesAsTheRuleSays) {
  const ShareCase& c = GetParam();
  const SharePass pass = Share({.inventory = c.inventory,
                                .accounting = c.accounting,
                                .running = c.running,
                                .queue = c.queue,
                                .policy = c.policy ? &*c.policy : nullptr,
                                .now = kNow,
                                .usage = c.usage ? &*c.usage : nullptr});
  EXPECT_EQ(Render(pass.start), c.started);
  std::vector<std::string> preempted;
  for (const Preemption& p : pass.preempt) {
    preempted.push_back(fmt::format("{} by {}: {}", p.victim, p.by, p.message));
  }
  EXPECT_EQ(preempted, c.preempted);
  std::vector<std::string> waiting;
  for (const Waiting& w : pass.waiting) {
    waiting.push_back(w.key + ": " + w.reason);
  }
  EXPECT_EQ(waiting, c.waiting);
}

const Inventory kBox4{{MakeNode("box", 16, 64 * kGib, {{kT4, 4}})}};
const Inventory kBox6{{MakeNode("box", 16, 64 * kGib, {{kT4, 6}})}};
const Inventory kTwoBoxes{
    {MakeNode("n0", 16, 64 * kGib, {{kT4, 4}}), MakeNode("n1", 16, 64 * kGib, {{kT4, 4}})}};

SharingPolicy Policy(std::vector<ProjectQuota> projects) {
  SharingPolicy policy;
  policy.projects = std::move(projects);
  std::ranges::sort(policy.projects, {}, &ProjectQuota::project);
  return policy;
}

const std::string kPriorityPreempted =
    "The job was preempted by job p/hi, of higher priority (5 over 0): its replicas are stopped, "
    "and it waits in the queue to run again.";

INSTANTIATE_TEST_SUITE_P(
    Rules, ShareTest,
    ::testing::Values(
        ShareCase{.name = "QuotaAdmitsAJobWithinIt",
                  .inventory = kBox4,
                  .running = {Running("p/r", {0})},
                  .queue = {Queued("p/a", 1, 1)},
                  .policy = Policy({Quota("p", 2)}),
                  .started = "p/a{master-replica-0@0[1]}"},
        ShareCase{.name = "BeyondItsQuotaAJobBorrowsIdleDevices",
                  .inventory = kBox4,
                  .running = {Running("p/r", {0})},
                  .queue = {Queued("p/a", 2, 1)},
                  .policy = Policy({Quota("p", 1)}),
                  .started = "p/a{master-replica-0@0[1,2]}"},
        ShareCase{.name = "BeyondItsQuotaWithNothingIdleItWaitsSayingSo",
                  .inventory = kBox4,
                  .running = {Running("p/r", {0, 1}), Running("q/r", {2, 3})},
                  .queue = {Queued("p/a", 1, 1)},
                  .policy = Policy({Quota("p", 2)}),
                  .waiting = {"p/a: Project p uses 2 of its 2 × NVIDIA_TESLA_T4 (quota), and no "
                              "idle devices are left to borrow."}},
        ShareCase{.name = "AProjectAtItsJobsLimitStartsNothing",
                  .inventory = kBox4,
                  .running = {Running("p/r", {0})},
                  .queue = {Queued("p/a", 1, 1), Queued("q/b", 1, 2)},
                  .policy = Policy({Quota("p", std::nullopt, 1, 1)}),
                  .started = "q/b{master-replica-0@0[1]}",
                  .waiting = {"p/a: Project p runs 1 of its 1 jobs (quota)."}},
        ShareCase{
            .name = "TheOwnerReclaimsFromTheMostRecentBorrower",
            .inventory = kBox4,
            .running = {Running("q/1", {0}, seconds(40)), Running("q/2", {1}, seconds(30)),
                        Running("q/3", {2}, seconds(20)), Running("q/4", {3}, seconds(10))},
            .queue = {Queued("p/a", 1, 1)},
            .policy = Policy({Quota("p", 2), Quota("q", 2)}),
            .preempted = {"q/4 by p/a: The job was preempted by job p/a: project p reclaims its "
                          "quota, which this job borrowed; its replicas are stopped, and it "
                          "waits in the queue to run again."},
            .waiting = {"p/a: Preempting q/4 to make room; it starts once they have stopped."}},
        ShareCase{.name = "NoReclaimBeyondTheReclaimersOwnQuota",
                  .inventory = kBox4,
                  .running = {Running("p/1", {0}, seconds(50)), Running("q/2", {1}, seconds(30)),
                              Running("q/3", {2}, seconds(20)), Running("q/4", {3}, seconds(10))},
                  .queue = {Queued("p/a", 1, 1)},
                  .policy = Policy({Quota("p", 1), Quota("q", 2)}),
                  .waiting = {"p/a: Project p uses 1 of its 1 × NVIDIA_TESLA_T4 (quota), and no "
                              "idle devices are left to borrow."}},
        ShareCase{.name = "EqualWeightsAlternateProjects",
                  .inventory = kBox6,
                  .queue = {Queued("a/1", 1, 1), Queued("a/2", 1, 2), Queued("a/3", 1, 3),
                            Queued("a/4", 1, 4), Queued("b/1", 1, 5), Queued("b/2", 1, 6),
                            Queued("b/3", 1, 7)},
                  .started = "a/1{master-replica-0@0[0]} b/1{master-replica-0@0[1]} "
                             "a/2{master-replica-0@0[2]} b/2{master-replica-0@0[3]} "
                             "a/3{master-replica-0@0[4]} b/3{master-replica-0@0[5]}",
                  .waiting = {"a/4: Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 "
                              "of 6 free)."}},
        ShareCase{.name = "WeightsTwoToOneServeTwoToOne",
                  .inventory = kBox6,
                  .queue = {Queued("a/1", 1, 1), Queued("a/2", 1, 2), Queued("a/3", 1, 3),
                            Queued("a/4", 1, 4), Queued("a/5", 1, 5), Queued("b/1", 1, 6),
                            Queued("b/2", 1, 7), Queued("b/3", 1, 8)},
                  .policy = Policy({Quota("a", std::nullopt, 2)}),
                  .started = "a/1{master-replica-0@0[0]} b/1{master-replica-0@0[1]} "
                             "a/2{master-replica-0@0[2]} a/3{master-replica-0@0[3]} "
                             "b/2{master-replica-0@0[4]} a/4{master-replica-0@0[5]}",
                  .waiting = {"a/5: Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 "
                              "of 6 free).",
                              "b/3: Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 "
                              "of 6 free)."}},
        ShareCase{.name = "TheProjectUsingLessGoesFirst",
                  .inventory = kBox4,
                  .running = {Running("a/r", {0, 1})},
                  .queue = {Queued("a/1", 1, 1), Queued("b/1", 1, 2), Queued("b/2", 1, 3)},
                  .started = "b/1{master-replica-0@0[2]} b/2{master-replica-0@0[3]}",
                  .waiting = {"a/1: Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 "
                              "of 4 free)."}},
        ShareCase{.name = "PastUsageOutweighsAnInstantsShare",
                  .inventory = kBox4,
                  .queue = {Queued("a/1", 4, 1), Queued("b/1", 4, 2)},
                  .usage = std::map<std::string, double, std::less<>>{{"a", 1000}},
                  .started = "b/1{master-replica-0@0[0,1,2,3]}",
                  .waiting = {"a/1: Waiting for room: its replica needs 4 × NVIDIA_TESLA_T4 (0 "
                              "of 4 free)."}},
        ShareCase{.name = "TheLastPassesHeadKeepsItsPlace",
                  .inventory = kBox4,
                  .queue = {Queued("a/1", 1, 1), Head(Queued("b/big", 4, 2))},
                  .started = "b/big{master-replica-0@0[0,1,2,3]}",
                  .waiting = {"a/1: Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 "
                              "of 4 free)."}},
        // A head of one device fits whenever one frees: the shares decide (a holds 1, b 2).
        ShareCase{.name = "AHeadOfOneDeviceGoesByTheShares",
                  .inventory = kBox4,
                  .running = {Running("a/r", {0}), Running("b/r1", {1}), Running("b/r2", {2})},
                  .queue = {Head(Queued("b/1", 1, 1)), Queued("a/1", 1, 2)},
                  .started = "a/1{master-replica-0@0[3]}",
                  .waiting = {"b/1: Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 "
                              "of 4 free)."}},
        ShareCase{.name = "AHeadOfOneDeviceKeepsItsPlaceUnderStrictAccounting",
                  .inventory = kBox4,
                  .running = {Running("a/r", {0}), Running("b/r1", {1}), Running("b/r2", {2})},
                  .queue = {Head(Queued("b/1", 1, 1)), Queued("a/1", 1, 2)},
                  .accounting = Accounting::kStrict,
                  .started = "b/1{master-replica-0@0[3]}",
                  .waiting = {"a/1: Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 "
                              "of 4 free)."}},
        ShareCase{.name = "HigherPriorityGoesBeforeAnyShare",
                  .inventory = kBox4,
                  .running = {Running("a/r", {0, 1, 2})},
                  .queue = {Queued("b/1", 1, 1), Queued("a/hi", 1, 2, 5)},
                  .started = "a/hi{master-replica-0@0[3]}",
                  .waiting = {"b/1: Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 "
                              "of 4 free)."}},
        ShareCase{
            .name = "ABackfillJobEndingBeforeTheReservationStartsOnItsDevices",
            .inventory = kBox4,
            .running = {Running("p/r1", {0, 1}, seconds(50), seconds(100)),
                        Running("p/r2", {2}, seconds(100), seconds(200))},
            .queue = {Queued("p/big", 4, 1), Queued("p/short", 1, 2, 0, seconds(30)),
                      Queued("p/long", 1, 3, 0, seconds(300)), Queued("p/open", 1, 4)},
            .started = "p/short{master-replica-0@0[3]}",
            .waiting = {"p/big: Waiting for room: its replica needs 4 × NVIDIA_TESLA_T4 (1 of 4 "
                        "free). It holds the reservation: expected to start by "
                        "2026-01-01T00:01:40Z.",
                        "p/long: Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 of 4 "
                        "free).",
                        "p/open: Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 of 4 "
                        "free)."}},
        ShareCase{
            .name = "AJobTooLongForTheReservationWaitsBehindIt",
            .inventory = kBox4,
            .running = {Running("p/r1", {0, 1}, seconds(50), seconds(100))},
            .queue = {Queued("p/big", 4, 1), Queued("p/long", 1, 2, 0, seconds(300))},
            .waiting = {"p/big: Waiting for room: its replica needs 4 × NVIDIA_TESLA_T4 (2 of 4 "
                        "free). It holds the reservation: expected to start by "
                        "2026-01-01T00:00:50Z.",
                        "p/long: Waiting behind the reservation for job p/big (needs 4 × "
                        "NVIDIA_TESLA_T4, expected free at 2026-01-01T00:00:50Z)."}},
        ShareCase{
            .name = "AJobOffTheReservedDevicesStartsWhateverItsLength",
            .inventory = kTwoBoxes,
            .running = {Running("p/r0", {0, 1, 2, 3}, seconds(0), seconds(100)),
                        Running("p/r1", {0, 1}, seconds(0), std::nullopt, 0, 1)},
            .queue = {Queued("p/big", 4, 1), Queued("p/open", 1, 2)},
            .started = "p/open{master-replica-0@1[2]}",
            .waiting = {"p/big: Waiting for room: its replica needs 4 × NVIDIA_TESLA_T4 (2 of 8 "
                        "free). It holds the reservation: expected to start by "
                        "2026-01-01T00:01:40Z."}},
        ShareCase{
            .name = "WithUnknownEndsOnlyDevicesTheReservationDoesNotNeedAreUsed",
            .inventory = kBox4,
            .running = {Running("p/r1", {0, 1})},
            .queue = {Queued("p/big", 4, 1), Queued("p/short", 1, 2, 0, seconds(1))},
            .waiting = {"p/big: Waiting for room: its replica needs 4 × NVIDIA_TESLA_T4 (2 of 4 "
                        "free).",
                        "p/short: Waiting behind the reservation for job p/big (needs 4 × "
                        "NVIDIA_TESLA_T4, expected free when running jobs without a "
                        "maxRunningTime end)."}},
        ShareCase{
            .name = "HigherPriorityPreemptsTheMostRecentlyStarted",
            .inventory = {{MakeNode("box", 16, 64 * kGib, {{kT4, 2}})}},
            .running = {Running("p/early", {0}, seconds(20)), Running("p/late", {1}, seconds(10))},
            .queue = {Queued("p/hi", 1, 1, 5)},
            .preempted = {"p/late by p/hi: " + kPriorityPreempted},
            .waiting = {"p/hi: Preempting p/late to make room; it starts once they have "
                        "stopped."}},
        ShareCase{.name = "ALabelledJobIsNeverAVictim",
                  .inventory = {{MakeNode("box", 16, 64 * kGib, {{kT4, 2}})}},
                  .running = {Running("p/early", {0}, seconds(20)),
                              NotPreemptible(Running("p/late", {1}, seconds(10)))},
                  .queue = {Queued("p/hi", 1, 1, 5)},
                  .preempted = {"p/early by p/hi: " + kPriorityPreempted},
                  .waiting = {"p/hi: Preempting p/early to make room; it starts once they have "
                              "stopped."}},
        ShareCase{.name = "VictimsItCanDoWithoutAreSpared",
                  .inventory = kBox4,
                  .running = {Running("p/x", {0}, seconds(10)), Running("p/y", {1, 2}, seconds(20)),
                              Running("p/z", {3}, seconds(30))},
                  .queue = {Queued("p/hi", 2, 1, 5)},
                  .preempted = {"p/y by p/hi: " + kPriorityPreempted},
                  .waiting = {"p/hi: Preempting p/y to make room; it starts once they have "
                              "stopped."}},
        ShareCase{.name = "EqualOrHigherPriorityIsNoVictim",
                  .inventory = {{MakeNode("box", 16, 64 * kGib, {{kT4, 1}})}},
                  .running = {Priority(Running("p/r", {0}), 5)},
                  .queue = {Queued("p/hi", 1, 1, 5)},
                  .waiting = {"p/hi: Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 "
                              "of 1 free)."}},
        ShareCase{.name = "AnotherProjectsGuaranteedJobIsNoPriorityVictim",
                  .inventory = {{MakeNode("box", 16, 64 * kGib, {{kT4, 1}})}},
                  .running = {Running("q/r", {0})},
                  .queue = {Queued("p/hi", 1, 1, 5)},
                  .policy = Policy({Quota("q", 1)}),
                  .waiting = {"p/hi: Waiting for room: its replica needs 1 × NVIDIA_TESLA_T4 (0 "
                              "of 1 free)."}},
        ShareCase{.name = "AJobThatFitsOnceStoppingJobsEndWaitsForThem",
                  .inventory = {{MakeNode("box", 16, 64 * kGib, {{kT4, 2}})}},
                  .running = {Stopping(Running("p/s", {0})), Running("p/r", {1})},
                  .queue = {Queued("p/hi", 1, 1, 5)},
                  .waiting = {"p/hi: Waiting for p/s to stop; it starts then."}}));

TEST(PreemptibleByLabels, OnlyFalseOptsOut) {
  EXPECT_TRUE(PreemptibleByLabels({}));
  EXPECT_TRUE(PreemptibleByLabels({{"trainyard-preemptible", "true"}}));
  EXPECT_FALSE(PreemptibleByLabels({{"trainyard-preemptible", "false"}}));
}

}  // namespace
}  // namespace trainyard::sched
