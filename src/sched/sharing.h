// How a cluster's devices are shared between projects (issue #34): what an admin sets, as values.
// The rules that read it live beside it in sched/ (pure); the store that keeps it and the API and
// CLI that change it are elsewhere (store/, server/, cli/).
//
// Anchors: a project's quota is a Kueue ClusterQueue's nominal quota per resource flavour (here an
// accelerator type, vCPUs, memory and jobs); projects with work borrow the quota others leave idle
// and give it back when its owner submits (a Kueue cohort); a weight sets a project's fair share
// of what is contended (Kueue's fair sharing, Slurm's fair-share factor).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainyard::sched {

// One project's quota and share. An absent limit is no limit; a project without a
// ProjectQuota has no limits and weight 1.
struct ProjectQuota {
  std::string project;
  // Devices in use at once per accelerator type (catalog names, "NVIDIA_TESLA_T4"). A type the
  // map lacks is not limited. 0 allows none of that type (a job asking for it is refused).
  std::map<std::string, int, std::less<>> accelerators;
  std::optional<int> cpus;                 // vCPUs in use at once (the machine types' vCPUs)
  std::optional<std::int64_t> memory_mib;  // memory in use at once (the machine types' memory)
  std::optional<int> jobs;                 // jobs holding resources at once (running or staging)
  // The project's fair share of contended devices, relative to the other projects' (≥ 1).
  int weight = 1;

  friend bool operator==(const ProjectQuota&, const ProjectQuota&) = default;
};

// The whole sharing policy: every project's quota and share, and the admin's table of priority
// classes (a TFJob's `schedulingPolicy.priorityClass`, a Vertex job's scheduling priority class)
// mapped to the number ml v1's `scheduling.priority` is.
struct SharingPolicy {
  std::vector<ProjectQuota> projects;  // at most one per project, sorted by project
  std::map<std::string, int, std::less<>> priority_classes;

  // The quota of `project`, or nullptr when it has none (no limits, weight 1).
  const ProjectQuota* QuotaOf(std::string_view project) const;
  // The quota `project` answers to: its row, or for a project without one the default quota
  // (that project, no limits, weight 1), as the sharing API shows it.
  ProjectQuota QuotaOrDefault(std::string_view project) const;

  friend bool operator==(const SharingPolicy&, const SharingPolicy&) = default;
};

}  // namespace trainyard::sched
