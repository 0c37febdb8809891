#include "api/trainyard/cluster.h"

#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "sched/sharing_json.h"
#include "server/http_message.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

using nlohmann::json;

// A device's `heldBy` (see the header); null when nobody holds it.
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

// `amounts` as `use` and `borrowed` are shown (see the header).
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

HttpResponse GetCluster(const ClusterLookup& lookup, const RoutedRequest& request) {
  const std::string& project = request.Param("project");
  std::optional<control::ClusterView> view = lookup();
  if (!view) {
    return ErrorResponse(Status::Unavailable("The server's executor is not running yet."));
  }
  json nodes = json::array();
  for (const sched::Node& node : view->inventory.nodes) {
    json devices = json::array();
    for (const sched::Device& device : node.devices) {
      devices.push_back(
          {{"index", device.index},
           {"accelerator", device.accelerator},
           {"model", device.model},
           {"emulated", device.emulated},
           {"heldBy", HolderJson(control::HolderOf(*view, project, node.name, device.index))}});
    }
    nodes.push_back({{"name", node.name},
                     {"cpus", node.cpus},
                     {"memoryMib", node.memory_mib},
                     {"labels", node.labels},
                     {"devices", std::move(devices)}});
  }
  const control::ProjectQueue queued = control::QueueOf(*view, project);
  json queue = json::array();
  for (const control::QueuedInfo& job : queued.own) {
    queue.push_back({{"jobId", job.job_id}, {"position", job.position}, {"reason", job.reason}});
  }
  return JsonResponse(json{{"nodes", std::move(nodes)},
                           {"queue", std::move(queue)},
                           {"otherProjectsQueued", queued.others},
                           {"projects", ProjectsJson(*view)}}
                          .dump());
}

}  // namespace

void AddTrainyardV1ClusterRoute(Router& router, ClusterLookup cluster) {
  router.Add({.method = "GET",
              .pattern = "/trainyard/v1/projects/{project}/cluster",
              .name = "trainyard.cluster.get",
              .handler = [cluster = std::move(cluster)](
                             const RoutedRequest& r) { return GetCluster(cluster, r); },
              .access = {{.permission = "ml.jobs.list"}},
              .audit = {.service = kTrainyardService,
                        .method = "trainyard.v1.ClusterService.GetCluster"}});
}

}  // namespace trainyard::server
