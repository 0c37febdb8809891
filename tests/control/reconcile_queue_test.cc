// The queue's reconcile rule (control/reconcile/queue.h), one row per rule: stored jobs, what holds
// resources and the clock in; the actions and the published queue out, as text.
#include <chrono>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "control/reconcile/job_limits.h"
#include "control/reconcile/queue.h"
#include "control/reconcile_jobs.h"
#include "support/sample_jobs.h"

namespace trainyard::control {
namespace {

using std::chrono::seconds;
using testing::kEpoch;
using testing::Suspended;
using testing::WaitingAtMost;
using testing::WithPosition;
using testing::WithPriority;
using testing::WithState;

// A QUEUED BASIC_GPU job (one master, 1 × K80) created `age` after kEpoch.
model::Job GpuJob(std::string id, seconds age) {
  model::Job job = trainyard::testing::ValidRuntimeJob(std::move(id));
  job.training_input->scale_tier = model::ScaleTier::kBasicGpu;
  job.state = model::JobState::kQueued;
  job.create_time = kEpoch + age;
  return job;
}

// The same on 2 × K80 (a CUSTOM n1-standard-8 master): a gang of more than one device.
model::Job TwoGpuJob(std::string id, seconds age) {
  model::Job job = GpuJob(std::move(id), age);
  job.training_input->scale_tier = model::ScaleTier::kCustom;
  job.training_input->master_type = "n1-standard-8";
  job.training_input->master_config = model::ReplicaConfig{
      .accelerator_config = model::AcceleratorConfig{.count = 2, .type = "NVIDIA_TESLA_K80"}};
  return job;
}

// Node "n0": 8 vCPUs, 30 GiB and `k80s` K80s.
sched::Inventory Machine(int k80s) {
  sched::Node node{.name = "n0", .cpus = 8, .memory_mib = 30 * 1024, .devices = {}};
  for (int i = 0; i < k80s; ++i) {
    node.devices.push_back(
        {.index = i, .accelerator = "NVIDIA_TESLA_K80", .model = "Tesla K80", .emulated = false});
  }
  return {.nodes = {node}};
}

std::string Devices(const sched::Allocation& allocation) {
  std::vector<std::string> replicas;
  for (const sched::ReplicaAssignment& replica : allocation.replicas) {
    replicas.push_back(fmt::format("{}@{}:{}", replica.task_name, replica.node,
                                   fmt::join(replica.device_indices, ",")));
  }
  return fmt::format("{}", fmt::join(replicas, " "));
}

std::string Render(const QueueAction& action) {
  if (const auto* end = std::get_if<EndQueuedJob>(&action)) {
    return fmt::format("end {}/{} {}: {}", end->project, end->job_id,
                       model::JobStateName(end->state), end->message);
  }
  if (const auto* position = std::get_if<SetPosition>(&action)) {
    return fmt::format("position {}/{} {}", position->project, position->job_id,
                       position->position);
  }
  if (const auto* place = std::get_if<PlaceJob>(&action)) {
    return fmt::format("place {}/{} {} ({} shapes)", place->project, place->job_id,
                       Devices(place->allocation), place->shapes.size());
  }
  if (const auto* orphan = std::get_if<EndOrphan>(&action)) {
    return fmt::format("orphan {}/{} {} -> {}: {}", orphan->project, orphan->job.job_id,
                       model::JobStateName(orphan->job.state), model::JobStateName(orphan->to),
                       orphan->message);
  }
  if (const auto* preempt = std::get_if<PreemptJob>(&action)) {
    return fmt::format("preempt {}/{}: {}", preempt->project, preempt->job_id, preempt->message);
  }
  const auto& trial = std::get<PlaceTrial>(action);
  return fmt::format("trial {} {}", trial.study_key, Devices(trial.allocation));
}

struct QueueCase {
  std::string name;
  std::vector<std::pair<std::string, model::Job>> jobs;
  sched::Inventory inventory;
  std::vector<sched::Allocation> running;
  std::vector<std::string> trials;  // the study keys whose next trial competes
  bool hand_over = false;
  bool hold = false;
  // The keys of the jobs the executor holds; nullopt: it has not recovered yet.
  std::optional<std::set<std::string, std::less<>>> held = std::set<std::string, std::less<>>{};
  std::optional<sched::SharingPolicy> sharing = std::nullopt;
  std::vector<std::string> actions;
  std::vector<std::string> queue;  // "project/job #position: reason"
};

const sched::Allocation kHoldsDevice0{
    .key = "p/running",
    .replicas = {{.task_name = "master-replica-0", .node = 0, .device_indices = {0}}}};

// An allocation of device 0 for `key`.
sched::Allocation HoldsDevice0(std::string key) {
  sched::Allocation allocation = kHoldsDevice0;
  allocation.key = std::move(key);
  return allocation;
}

// `job` RUNNING since `age` after kEpoch.
model::Job RunningSince(model::Job job, seconds age) {
  job.state = model::JobState::kRunning;
  job.start_time = kEpoch + age;
  return job;
}

model::Job Labelled(model::Job job, std::string key, std::string value) {
  job.labels[std::move(key)] = std::move(value);
  return job;
}

// `job` of TFJob priority class `name` (its extras).
model::Job OfClass(model::Job job, std::string name) {
  job.extras.emplace().priority_class = std::move(name);
  return job;
}

const sched::SharingPolicy kClassTop{.projects = {}, .priority_classes = {{"top", 900}}};

const std::string kPreemptedByHi =
    "The job was preempted by job p/hi, of higher priority (5 over 0): its replicas are stopped, "
    "and it waits in the queue to run again.";

std::vector<QueueCase> QueueCases() {
  const std::string wait_one_k80 =
      "Waiting for room: its replica needs 1 × NVIDIA_TESLA_K80 (0 of 1 free).";
  return {
      {.name = "a job that fits is placed",
       .jobs = {{"p", GpuJob("a", seconds(1))}},
       .inventory = Machine(1),
       .actions = {"place p/a master-replica-0@0:0 (1 shapes)"}},
      {.name = "the higher priority is placed; the other waits, first in the queue",
       .jobs = {{"p", GpuJob("old", seconds(1))},
                {"p", WithPriority(GpuJob("new", seconds(2)), 5)}},
       .inventory = Machine(1),
       .actions = {"place p/new master-replica-0@0:0 (1 shapes)", "position p/old 1"},
       .queue = {"p/old #1: " + wait_one_k80}},
      {.name = "equal priorities go first in, first out; positions follow that order",
       .jobs = {{"p", GpuJob("c", seconds(3))},
                {"p", GpuJob("b", seconds(2))},
                {"q", GpuJob("a", seconds(1))}},
       .inventory = Machine(1),
       .running = {kHoldsDevice0},
       .actions = {"position q/a 1", "position p/b 2", "position p/c 3"},
       .queue = {"q/a #1: " + wait_one_k80, "p/b #2: " + wait_one_k80, "p/c #3: " + wait_one_k80}},
      {.name = "a job already at its position is not written again",
       .jobs = {{"p", WithPosition(GpuJob("a", seconds(1)), 1)},
                {"p", WithPosition(GpuJob("b", seconds(2)), 1)}},
       .inventory = Machine(1),
       .running = {kHoldsDevice0},
       .actions = {"position p/b 2"},
       .queue = {"p/a #1: " + wait_one_k80, "p/b #2: " + wait_one_k80}},
      {.name = "a suspended job leaves the positions once, and is never placed",
       .jobs = {{"p", Suspended(WithPosition(GpuJob("s", seconds(1)), 3))},
                {"p", Suspended(GpuJob("t", seconds(2)))}},
       .inventory = Machine(1),
       .actions = {"position p/s 0"}},
      {.name = "past its maxWaitTime: cancelled, saying so",
       .jobs = {{"p", WaitingAtMost(GpuJob("late", seconds(0)), seconds(59))}},
       .inventory = Machine(1),
       .actions = {"end p/late CANCELLED: Job cancelled: exceeded maxWaitTime."}},
      {.name = "within its maxWaitTime: placed",
       .jobs = {{"p", WaitingAtMost(GpuJob("soon", seconds(0)), seconds(60))}},
       .inventory = Machine(1),
       .actions = {"place p/soon master-replica-0@0:0 (1 shapes)"}},
      {.name = "a job that can never fit fails with what it needs",
       .jobs = {{"p", GpuJob("big", seconds(1))}},
       .inventory = Machine(0),
       .actions = {"end p/big FAILED: The job cannot run on this cluster: it needs 1 × "
                   "NVIDIA_TESLA_K80 (1 per replica); the largest node has 0."}},
      {.name = "with a cluster manager every job is handed over, fitting or not",
       .jobs = {{"p", GpuJob("b", seconds(2))}, {"p", GpuJob("a", seconds(1))}},
       .inventory = Machine(0),
       .hand_over = true,
       .actions = {"place p/a master-replica-0@0: (1 shapes)",
                   "place p/b master-replica-0@0: (1 shapes)"}},
      {.name = "a study's next trial competes at its job's place in the queue",
       .jobs = {{"p", GpuJob("later", seconds(5))}},
       .inventory = Machine(1),
       .trials = {"p/study"},
       .actions = {"trial p/study master-replica-0@0:0", "position p/later 1"},
       .queue = {"p/later #1: " + wait_one_k80}},
      {.name = "jobs in other states that the executor holds are not the queue's",
       .jobs = {{"p", WithState(GpuJob("r", seconds(1)), model::JobState::kRunning)},
                {"p", WithState(GpuJob("c", seconds(2)), model::JobState::kCancelling)},
                {"p", WithState(GpuJob("x", seconds(3)), model::JobState::kPreparing)}},
       .inventory = Machine(1),
       .held = std::set<std::string, std::less<>>{"p/r", "p/c", "p/x"}},
      {.name = "orphans: nobody runs them, so each goes back or ends, saying why",
       .jobs = {{"p", WithState(GpuJob("r", seconds(1)), model::JobState::kRunning)},
                {"p", WithState(GpuJob("c", seconds(2)), model::JobState::kCancelling)},
                {"p", WithState(GpuJob("x", seconds(3)), model::JobState::kPreparing)},
                {"p", Suspended(WithState(GpuJob("s", seconds(4)), model::JobState::kRunning))},
                {"p", WithState(GpuJob("done", seconds(5)), model::JobState::kSucceeded)}},
       .inventory = Machine(1),
       .actions = {"orphan p/r RUNNING -> FAILED: The trainyard server restarted while the job "
                   "was running; its replicas were stopped.",
                   "orphan p/c CANCELLING -> CANCELLED: Job was cancelled by the user. (The "
                   "trainyard server restarted while it was cancelling.)",
                   "orphan p/x PREPARING -> QUEUED: ", "orphan p/s RUNNING -> QUEUED: "}},
      {.name = "before the executor has taken over a previous server's jobs, none is an orphan",
       .jobs = {{"p", WithState(GpuJob("r", seconds(1)), model::JobState::kRunning)}},
       .inventory = Machine(1),
       .held = std::nullopt},
      {.name = "a higher priority preempts the running job it reads from the store",
       .jobs = {{"p", RunningSince(GpuJob("low", seconds(0)), seconds(10))},
                {"p", WithPriority(GpuJob("hi", seconds(20)), 5)}},
       .inventory = Machine(1),
       .running = {HoldsDevice0("p/low")},
       .held = std::set<std::string, std::less<>>{"p/low"},
       .actions = {"preempt p/low: " + kPreemptedByHi, "position p/hi 1"},
       .queue = {"p/hi #1: Preempting p/low to make room; it starts once they have stopped."}},
      {.name = "a running job's priority class counts: a lower job does not preempt it",
       .jobs = {{"p", OfClass(RunningSince(GpuJob("cls", seconds(0)), seconds(10)), "top")},
                {"p", WithPriority(GpuJob("hi", seconds(20)), 500)}},
       .inventory = Machine(1),
       .running = {HoldsDevice0("p/cls")},
       .held = std::set<std::string, std::less<>>{"p/cls"},
       .sharing = kClassTop,
       .actions = {"position p/hi 1"},
       .queue = {"p/hi #1: " + wait_one_k80}},
      {.name = "a running job's priority class counts: a higher job preempts it, naming both",
       .jobs = {{"p", OfClass(RunningSince(GpuJob("cls", seconds(0)), seconds(10)), "top")},
                {"p", WithPriority(GpuJob("hi", seconds(20)), 1000)}},
       .inventory = Machine(1),
       .running = {HoldsDevice0("p/cls")},
       .held = std::set<std::string, std::less<>>{"p/cls"},
       .sharing = kClassTop,
       .actions = {"preempt p/cls: The job was preempted by job p/hi, of higher priority (1000 "
                   "over 900): its replicas are stopped, and it waits in the queue to run again.",
                   "position p/hi 1"},
       .queue = {"p/hi #1: Preempting p/cls to make room; it starts once they have stopped."}},
      {.name = "a job labelled trainyard-preemptible false is never preempted",
       .jobs = {{"p", Labelled(RunningSince(GpuJob("low", seconds(0)), seconds(10)),
                               "trainyard-preemptible", "false")},
                {"p", WithPriority(GpuJob("hi", seconds(20)), 5)}},
       .inventory = Machine(1),
       .running = {HoldsDevice0("p/low")},
       .held = std::set<std::string, std::less<>>{"p/low"},
       .actions = {"position p/hi 1"},
       .queue = {"p/hi #1: " + wait_one_k80}},
      {.name = "a study's trial is never preempted",
       .jobs = {{"p", RunningSince(GpuJob("study", seconds(0)), seconds(10))},
                {"p", WithPriority(GpuJob("hi", seconds(20)), 5)}},
       .inventory = Machine(1),
       .running = {HoldsDevice0("p/study/trial-1")},
       .held = std::set<std::string, std::less<>>{"p/study"},
       .actions = {"position p/hi 1"},
       .queue = {"p/hi #1: " + wait_one_k80}},
      {.name = "the job at position 1 keeps its place ahead of older ones of its priority when "
               "it needs more than one device",
       .jobs = {{"p", TwoGpuJob("older", seconds(1))},
                {"q", WithPosition(TwoGpuJob("first", seconds(2)), 1)}},
       .inventory = Machine(2),
       .actions = {"place q/first master-replica-0@0:0,1 (1 shapes)", "position p/older 1"},
       .queue = {"p/older #1: Waiting for room: its replica needs 2 × NVIDIA_TESLA_K80 (0 of 2 "
                 "free)."}},
      {.name = "a job at position 1 that needs one device goes by the shares, then FIFO",
       .jobs = {{"p", GpuJob("older", seconds(1))},
                {"q", WithPosition(GpuJob("first", seconds(2)), 1)}},
       .inventory = Machine(1),
       .actions = {"place p/older master-replica-0@0:0 (1 shapes)"},
       .queue = {"q/first #1: " + wait_one_k80}},
      {.name = "the sharing policy's quotas give the wait reason",
       .jobs = {{"p", RunningSince(GpuJob("r", seconds(0)), seconds(10))},
                {"p", GpuJob("a", seconds(20))}},
       .inventory = Machine(1),
       .running = {HoldsDevice0("p/r")},
       .held = std::set<std::string, std::less<>>{"p/r"},
       .sharing = sched::SharingPolicy{.projects = {{.project = "p",
                                                     .accelerators = {{"NVIDIA_TESLA_K80", 1}}}}},
       .actions = {"position p/a 1"},
       .queue = {"p/a #1: Project p uses 1 of its 1 × NVIDIA_TESLA_K80 (quota), and no idle "
                 "devices are left to borrow."}},
      {.name = "a held queue starts nothing and says no positions, but ends orphans",
       .jobs = {{"p", GpuJob("a", seconds(1))},
                {"p", WithState(GpuJob("r", seconds(1)), model::JobState::kRunning)}},
       .inventory = Machine(1),
       .hold = true,
       .actions = {"orphan p/r RUNNING -> FAILED: The trainyard server restarted while the job "
                   "was running; its replicas were stopped."}},
  };
}

TEST(ReconcileQueue, EachRule) {
  const catalog::Catalog& catalog = catalog::Catalog::Builtin();
  for (const QueueCase& c : QueueCases()) {
    std::vector<sched::JobDemand> trials;
    for (const std::string& study : c.trials) {
      model::Job job = GpuJob("study", seconds(2));
      Result<std::vector<plan::ReplicaShape>> shapes = plan::JobReplicas(job, catalog);
      ASSERT_TRUE(shapes.ok()) << c.name;
      Result<sched::JobDemand> demand = JobDemandOf("p", job, *shapes, catalog);
      ASSERT_TRUE(demand.ok()) << c.name;
      demand->key = study + "/next-0";
      trials.push_back(*demand);
    }
    const QueuePass pass = ReconcileQueue({.jobs = c.jobs,
                                           .catalog = catalog,
                                           .inventory = c.inventory,
                                           .running = c.running,
                                           .trials = trials,
                                           .now = kEpoch + seconds(60),
                                           .hand_over = c.hand_over,
                                           .hold = c.hold,
                                           .held = c.held ? &*c.held : nullptr,
                                           .sharing = c.sharing ? &*c.sharing : nullptr});
    std::vector<std::string> actions;
    for (const QueueAction& action : pass.actions) {
      actions.push_back(Render(action));
    }
    EXPECT_EQ(actions, c.actions) << c.name;
    std::vector<std::string> queue;
    for (const QueuedInfo& info : pass.queue) {
      queue.push_back(
          fmt::format("{}/{} #{}: {}", info.project, info.job_id, info.position, info.reason));
    }
    EXPECT_EQ(queue, c.queue) << c.name;
  }
}

// A pass remembers nothing: the same world gives the same actions (a write the executor could not
// make is simply decided again on the next pass).
TEST(ReconcileQueue, TheSameWorldGivesTheSameActions) {
  const catalog::Catalog& catalog = catalog::Catalog::Builtin();
  const std::vector<std::pair<std::string, model::Job>> jobs = {{"p", GpuJob("a", seconds(1))},
                                                                {"p", GpuJob("b", seconds(2))}};
  const sched::Inventory inventory = Machine(1);
  const QueueWorld world{.jobs = jobs,
                         .catalog = catalog,
                         .inventory = inventory,
                         .running = {},
                         .trials = {},
                         .now = kEpoch + seconds(60)};
  const QueuePass first = ReconcileQueue(world);
  const QueuePass second = ReconcileQueue(world);
  ASSERT_EQ(first.actions.size(), 2U);
  ASSERT_EQ(second.actions.size(), first.actions.size());
  for (std::size_t i = 0; i < first.actions.size(); ++i) {
    EXPECT_EQ(Render(first.actions[i]), Render(second.actions[i]));
  }
}

}  // namespace
}  // namespace trainyard::control
