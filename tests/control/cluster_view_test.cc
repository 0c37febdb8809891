// What one project's caller is shown of the cluster (control/cluster_view.h): who holds each
// device (named only within the caller's project), the queue (other projects' jobs only counted)
// and each project's standing.
#include "control/cluster_view.h"

#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace trainyard::control {
namespace {

ReplicaInfo Replica(std::string task, std::string node, std::vector<int> devices,
                    std::string state = "RUNNING", std::string trial = "") {
  return ReplicaInfo{.task_name = std::move(task),
                     .trial_id = std::move(trial),
                     .state = std::move(state),
                     .node = std::move(node),
                     .device_indices = std::move(devices)};
}

// Node "box": device 0 held by p/j1's master, 1 by q/j2's worker, 2 by a trial of p/study,
// 3 by an exited replica of p/old, and node "other" device 0 by p/j1's worker.
ClusterView SharedBox() {
  ClusterView view;
  view.replicas["p/j1"] = {Replica("master-replica-0", "box", {0}),
                           Replica("worker-replica-0", "other", {0})};
  view.replicas["q/j2"] = {Replica("worker-replica-0", "box", {1})};
  view.replicas["p/study"] = {Replica("master-replica-0", "box", {2}, "RUNNING", "3")};
  view.replicas["p/old"] = {Replica("master-replica-0", "box", {3}, "EXITED")};
  return view;
}

TEST(HolderOfTest, NamesTheHolderOnlyWithinTheCallersProject) {
  const struct {
    std::string name;
    std::string project;
    std::string node;
    int index;
    std::optional<DeviceHolder> expected;
  } cases[] = {
      {"OwnJob", "p", "box", 0, DeviceHolder{.job_id = "j1", .task_name = "master-replica-0"}},
      {"SameIndexOtherNode", "p", "other", 0,
       DeviceHolder{.job_id = "j1", .task_name = "worker-replica-0"}},
      {"OtherProjectsJobSaysOnlyTaken", "p", "box", 1, DeviceHolder{.other_project = true}},
      {"SeenFromTheOtherSide", "q", "box", 0, DeviceHolder{.other_project = true}},
      {"OwnTrial", "p", "box", 2,
       DeviceHolder{.job_id = "study", .task_name = "master-replica-0", .trial_id = "3"}},
      {"ExitedReplicaHoldsNothing", "p", "box", 3, std::nullopt},
      {"FreeDevice", "p", "box", 4, std::nullopt},
      {"UnknownNode", "p", "nowhere", 0, std::nullopt},
      {"EmptyProjectOwnsNothing", "", "box", 0, DeviceHolder{.other_project = true}},
  };
  const ClusterView view = SharedBox();
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const std::optional<DeviceHolder> holder = HolderOf(view, c.project, c.node, c.index);
    ASSERT_EQ(holder.has_value(), c.expected.has_value());
    if (holder.has_value()) {
      EXPECT_EQ(holder->other_project, c.expected->other_project);
      EXPECT_EQ(holder->job_id, c.expected->job_id);
      EXPECT_EQ(holder->task_name, c.expected->task_name);
      EXPECT_EQ(holder->trial_id, c.expected->trial_id);
    }
  }
}

TEST(QueueOfTest, ShowsOwnJobsInOrderAndCountsTheOthers) {
  ClusterView view;
  view.queue = {{.project = "q", .job_id = "a", .position = 1, .reason = "r1"},
                {.project = "p", .job_id = "b", .position = 2, .reason = "r2"},
                {.project = "q", .job_id = "c", .position = 3, .reason = "r3"},
                {.project = "p", .job_id = "d", .position = 4, .reason = "r4"}};
  const struct {
    std::string project;
    std::vector<std::string> own;
    std::vector<std::int64_t> positions;
    int others;
  } cases[] = {
      {"p", {"b", "d"}, {2, 4}, 2},
      {"q", {"a", "c"}, {1, 3}, 2},
      {"r", {}, {}, 4},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.project);
    const ProjectQueue queue = QueueOf(view, c.project);
    std::vector<std::string> own;
    std::vector<std::int64_t> positions;
    for (const QueuedInfo& job : queue.own) {
      own.push_back(job.job_id);
      positions.push_back(job.position);
    }
    EXPECT_EQ(own, c.own);
    EXPECT_EQ(positions, c.positions);
    EXPECT_EQ(queue.others, c.others);
  }
  EXPECT_EQ(WaitingByProject(view), (std::map<std::string, int, std::less<>>{{"p", 2}, {"q", 2}}));
}

TEST(ProjectStandingsTest, ListsProjectsWithAQuotaUseOrWaitingJobs) {
  ClusterView view;
  view.inventory.nodes = {sched::Node{.name = "box",
                                      .cpus = 8,
                                      .memory_mib = 32768,
                                      .devices = {{.index = 0, .accelerator = "NVIDIA_TESLA_T4"},
                                                  {.index = 1, .accelerator = "NVIDIA_TESLA_T4"}}}};
  view.sharing.projects = {
      // sorted by project, as a SharingPolicy keeps them
      sched::ProjectQuota{.project = "busy", .accelerators = {{"NVIDIA_TESLA_T4", 1}}},
      sched::ProjectQuota{
          .project = "quota-only", .accelerators = {{"NVIDIA_TESLA_T4", 1}}, .weight = 2}};
  view.use["busy"] = sched::Amounts{.devices = {{"NVIDIA_TESLA_T4", 2}}, .cpus = 4, .jobs = 1};
  view.use["free-rider"] = sched::Amounts{.cpus = 2, .jobs = 1};
  view.queue = {{.project = "waiter", .job_id = "w", .position = 1},
                {.project = "busy", .job_id = "b2", .position = 2}};
  const struct {
    std::string project;
    bool has_quota;
    std::int64_t devices_used;
    std::int64_t devices_borrowed;
    int weight;
    int waiting;
  } expected[] = {
      // by name
      {"busy", true, 2, 1, 1, 1},
      {"free-rider", false, 0, 0, 1, 0},
      {"quota-only", true, 0, 0, 2, 0},
      {"waiter", false, 0, 0, 1, 1},
  };
  const std::vector<ProjectStanding> standings = ProjectStandings(view);
  ASSERT_EQ(standings.size(), std::size(expected));
  for (std::size_t i = 0; i < standings.size(); ++i) {
    const ProjectStanding& got = standings[i];
    SCOPED_TRACE(expected[i].project);
    EXPECT_EQ(got.project, expected[i].project);
    EXPECT_EQ(got.quota != nullptr, expected[i].has_quota);
    if (got.quota != nullptr) {
      EXPECT_EQ(got.quota->project, got.project);
    }
    EXPECT_EQ(got.use.DevicesOf("NVIDIA_TESLA_T4"), expected[i].devices_used);
    EXPECT_EQ(got.share.borrowed.DevicesOf("NVIDIA_TESLA_T4"), expected[i].devices_borrowed);
    EXPECT_EQ(got.share.weight, expected[i].weight);
    EXPECT_EQ(got.waiting, expected[i].waiting);
  }
  EXPECT_DOUBLE_EQ(standings[0].share.share, 1.0);  // both T4s of two
  EXPECT_DOUBLE_EQ(standings[2].share.share, 0.0);
}

}  // namespace
}  // namespace trainyard::control
