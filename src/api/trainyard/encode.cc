#include "api/trainyard/encode.h"

#include <utility>

#include "access/audit.h"
#include "access/roles.h"
#include "access/visible_projects.h"
#include "sched/sharing_json.h"

namespace trainyard::server {
namespace {

using nlohmann::json;

// A device's `heldBy`; null when nobody holds it.
json HolderJson(const std::optional<control::DeviceHolder>& holder) {
  if (!holder.has_value()) {
    return nullptr;
  }
  if (holder->other_project) {
    return json{{"otherProject", true}};
  }
  json out = {{"jobId", holder->job_id}, {"taskName", holder->task_name}};
  if (!holder->trial_id.empty()) {
    out["trialId"] = holder->trial_id;
  }
  return out;
}

// `amounts` as a standing's `use` and `borrowed` are shown.
json AmountsJson(const sched::Amounts& amounts) {
  return {{"accelerators", amounts.devices},
          {"cpus", amounts.cpus},
          {"memory", sched::MemoryQuantity(amounts.memory_mib)},
          {"jobs", amounts.jobs}};
}

json ProjectsJson(const control::ClusterView& view) {
  json projects = json::array();
  for (const control::ProjectStanding& standing : control::ProjectStandings(view)) {
    projects.push_back({{"project", standing.project},
                        {"quota", standing.quota != nullptr
                                      ? json::parse(sched::EncodeProjectQuota(*standing.quota))
                                      : json()},
                        {"use", AmountsJson(standing.use)},
                        {"borrowed", AmountsJson(standing.share.borrowed)},
                        {"share", standing.share.share},
                        {"weight", standing.share.weight},
                        {"waitingJobs", standing.waiting}});
  }
  return projects;
}

}  // namespace

json ClusterJson(const control::ClusterView& view, std::string_view project) {
  json nodes = json::array();
  for (const sched::Node& node : view.inventory.nodes) {
    json devices = json::array();
    for (const sched::Device& device : node.devices) {
      devices.push_back(
          {{"index", device.index},
           {"accelerator", device.accelerator},
           {"model", device.model},
           {"emulated", device.emulated},
           {"heldBy", HolderJson(control::HolderOf(view, project, node.name, device.index))}});
    }
    nodes.push_back({{"name", node.name},
                     {"cpus", node.cpus},
                     {"memoryMib", node.memory_mib},
                     {"labels", node.labels},
                     {"devices", std::move(devices)}});
  }
  const control::ProjectQueue queued = control::QueueOf(view, project);
  json queue = json::array();
  for (const control::QueuedInfo& job : queued.own) {
    queue.push_back({{"jobId", job.job_id}, {"position", job.position}, {"reason", job.reason}});
  }
  return {{"nodes", std::move(nodes)},
          {"queue", std::move(queue)},
          {"otherProjectsQueued", queued.others},
          {"projects", ProjectsJson(view)}};
}

json ReplicasJson(const std::vector<control::ReplicaInfo>& replicas) {
  json out = json::array();
  for (const control::ReplicaInfo& info : replicas) {
    json replica = {{"taskName", info.task_name},
                    {"state", info.state},
                    {"pid", info.pid},
                    {"restarts", info.restarts}};
    if (!info.trial_id.empty()) {
      replica["trialId"] = info.trial_id;
    }
    if (!info.exit_status.empty()) {
      replica["exitStatus"] = info.exit_status;
    }
    if (!info.node.empty()) {
      replica["node"] = info.node;
      replica["deviceIndices"] = info.device_indices;
    }
    out.push_back(std::move(replica));
  }
  return json{{"replicas", std::move(out)}};
}

json CallerJson(const std::optional<access::Principal>& caller,
                const std::vector<std::string>& held) {
  json grants = json::array();
  for (const access::Grant& grant :
       caller.has_value() ? caller->grants : std::vector<access::Grant>{}) {
    json permissions = json::array();
    for (const std::string& permission : access::AllPermissions()) {
      if (access::RoleHolds(grant.role, permission)) {
        permissions.push_back(permission);
      }
    }
    grants.push_back({{"role", std::string(access::RoleName(grant.role))},
                      {"project", grant.project},
                      {"permissions", std::move(permissions)}});
  }
  return {{"name", caller.has_value() ? caller->name : std::string(access::kAnonymous)},
          {"grants", std::move(grants)},
          {"allProjects", access::SeesAllProjects(caller)},
          {"projects", access::VisibleProjects(caller, held)}};
}

nlohmann::ordered_json SuspensionJson(const model::Job& job) {
  return {{"jobId", job.job_id},
          {"state", model::JobStateName(job.state)},
          {"suspended", model::IsSuspended(job)}};
}

json PriorityClassesJson(const std::map<std::string, int, std::less<>>& classes) {
  json out = json::object();
  for (const auto& [name, value] : classes) {
    out[name] = value;
  }
  return json{{"priorityClasses", std::move(out)}};
}

json PriorityClassJson(std::string_view name, int value) {
  return {{"name", name}, {"value", value}};
}

}  // namespace trainyard::server
