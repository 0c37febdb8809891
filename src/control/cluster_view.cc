#include "control/cluster_view.h"

#include <algorithm>
#include <set>

namespace trainyard::control {

std::optional<DeviceHolder> HolderOf(const ClusterView& view, std::string_view project,
                                     std::string_view node, int index) {
  for (const auto& [key, replicas] : view.replicas) {
    for (const ReplicaInfo& replica : replicas) {
      if (replica.node != node || replica.state == "EXITED" ||
          std::ranges::find(replica.device_indices, index) == replica.device_indices.end()) {
        continue;
      }
      const std::string_view job_key = key;
      const std::size_t slash = job_key.find('/');
      if (slash == std::string_view::npos || job_key.substr(0, slash) != project) {
        return DeviceHolder{.other_project = true};
      }
      return DeviceHolder{.job_id = std::string(job_key.substr(slash + 1)),
                          .task_name = replica.task_name,
                          .trial_id = replica.trial_id};
    }
  }
  return std::nullopt;
}

ProjectQueue QueueOf(const ClusterView& view, std::string_view project) {
  ProjectQueue queue;
  for (const QueuedInfo& queued : view.queue) {
    if (queued.project == project) {
      queue.own.push_back(queued);
    } else {
      ++queue.others;
    }
  }
  return queue;
}

std::map<std::string, int, std::less<>> WaitingByProject(const ClusterView& view) {
  std::map<std::string, int, std::less<>> waiting;
  for (const QueuedInfo& queued : view.queue) {
    ++waiting[queued.project];
  }
  return waiting;
}

std::vector<ProjectStanding> ProjectStandings(const ClusterView& view) {
  std::set<std::string, std::less<>> names;
  for (const sched::ProjectQuota& quota : view.sharing.projects) {
    names.insert(quota.project);
  }
  for (const auto& [project, use] : view.use) {
    names.insert(project);
  }
  const std::map<std::string, int, std::less<>> waiting = WaitingByProject(view);
  for (const auto& [project, count] : waiting) {
    names.insert(project);
  }
  const sched::Amounts capacity = sched::CapacityOf(view.inventory);
  std::vector<ProjectStanding> standings;
  for (const std::string& project : names) {
    ProjectStanding standing{.project = project, .quota = view.sharing.QuotaOf(project)};
    if (const auto held = view.use.find(project); held != view.use.end()) {
      standing.use = held->second;
    }
    standing.share = sched::ShareOfProject(standing.use, standing.quota, capacity, view.accounting);
    if (const auto queued = waiting.find(project); queued != waiting.end()) {
      standing.waiting = queued->second;
    }
    standings.push_back(std::move(standing));
  }
  return standings;
}

}  // namespace trainyard::control
