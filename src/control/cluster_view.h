// The cluster as the executor saw it on its last pass (the inventory, each job's replicas, the
// queue, the sharing policy and each project's use), and the rules of what one project's caller
// is shown of it (trainyard v1's cluster page, api/trainyard/cluster.h): a device another
// project's job holds is "taken" without naming the job, another project's queued jobs are only
// counted, and each project's standing (quota, use, borrowed, share, waiting jobs) is listed for
// every project with a quota, something held or jobs waiting. Pure and thread-safe.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "control/executor.h"
#include "control/reconcile/queue.h"
#include "sched/amounts.h"
#include "sched/inventory.h"
#include "sched/placement.h"
#include "sched/project_share.h"
#include "sched/sharing.h"

namespace trainyard::control {

struct ClusterView {
  sched::Inventory inventory;
  std::map<std::string, std::vector<ReplicaInfo>, std::less<>> replicas;  // by "project/jobId"
  std::vector<QueuedInfo> queue;
  sched::SharingPolicy sharing;                               // the quotas (issue #34)
  std::map<std::string, sched::Amounts, std::less<>> use;     // by project
  sched::Accounting accounting = sched::Accounting::kShared;  // as the executor counts
};

// Who holds a device, as a caller of one project may see it.
struct DeviceHolder {
  bool other_project = false;  // another project's job: nothing more is said
  std::string job_id;          // the rest are set for the caller's own project's jobs only
  std::string task_name;
  std::string trial_id;  // "" unless the replica is a tuning trial's
};

// The replica that holds device `index` of node `node` (one that has not EXITED), as `project`
// may see it; nullopt when nobody holds it.
std::optional<DeviceHolder> HolderOf(const ClusterView& view, std::string_view project,
                                     std::string_view node, int index);

// The queue as `project` sees it: its own jobs (in queue order, each with its position among
// all), and how many of the other projects' jobs wait.
struct ProjectQueue {
  std::vector<QueuedInfo> own;
  int others = 0;
};
ProjectQueue QueueOf(const ClusterView& view, std::string_view project);

// The QUEUED jobs of each project waiting in `view`'s queue.
std::map<std::string, int, std::less<>> WaitingByProject(const ClusterView& view);

// Where one project stands: its quota (null without one), what it holds, what the sharing pass
// counts it as borrowing and its dominant share (sched/project_share.h), and its waiting jobs.
struct ProjectStanding {
  std::string project;
  const sched::ProjectQuota* quota = nullptr;  // points into the view's sharing policy
  sched::Amounts use;
  sched::ProjectShare share;
  int waiting = 0;
};

// Every project with a quota, something held, or jobs waiting, by name.
std::vector<ProjectStanding> ProjectStandings(const ClusterView& view);

}  // namespace trainyard::control
