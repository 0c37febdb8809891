#include "server/trainyard_v1_cluster.h"

#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "server/http_message.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

using nlohmann::json;

// Who holds device `index` of node `node`, as `project` may see it; null when nobody does.
json HolderOf(const ClusterView& view, std::string_view project, std::string_view node, int index) {
  for (const auto& [key, replicas] : view.replicas) {
    for (const control::ReplicaInfo& replica : replicas) {
      if (replica.node != node || replica.state == "EXITED" ||
          std::ranges::find(replica.device_indices, index) == replica.device_indices.end()) {
        continue;
      }
      const std::string_view key_view = key;
      const std::size_t slash = key_view.find('/');
      if (key_view.substr(0, slash) != project) {
        return json{{"otherProject", true}};
      }
      json holder = {{"jobId", std::string(key_view.substr(slash + 1))},
                     {"taskName", replica.task_name}};
      if (!replica.trial_id.empty()) {
        holder["trialId"] = replica.trial_id;
      }
      return holder;
    }
  }
  return nullptr;
}

HttpResponse GetCluster(const ClusterLookup& lookup, const RoutedRequest& request) {
  const std::string& project = request.Param("project");
  std::optional<ClusterView> view = lookup();
  if (!view) {
    return ErrorResponse(Status::Unavailable("The server's executor is not running yet."));
  }
  json nodes = json::array();
  for (const sched::Node& node : view->inventory.nodes) {
    json devices = json::array();
    for (const sched::Device& device : node.devices) {
      devices.push_back({{"index", device.index},
                         {"accelerator", device.accelerator},
                         {"model", device.model},
                         {"emulated", device.emulated},
                         {"heldBy", HolderOf(*view, project, node.name, device.index)}});
    }
    nodes.push_back({{"name", node.name},
                     {"cpus", node.cpus},
                     {"memoryMib", node.memory_mib},
                     {"labels", node.labels},
                     {"devices", std::move(devices)}});
  }
  json queue = json::array();
  int others = 0;
  for (const control::QueuedInfo& queued : view->queue) {
    if (queued.project != project) {
      ++others;
      continue;
    }
    queue.push_back(
        {{"jobId", queued.job_id}, {"position", queued.position}, {"reason", queued.reason}});
  }
  return JsonResponse(json{
      {"nodes", std::move(nodes)}, {"queue", std::move(queue)}, {"otherProjectsQueued", others}}
                          .dump());
}

}  // namespace

void AddTrainyardV1ClusterRoute(Router& router, ClusterLookup cluster) {
  router.Add(
      {"GET",
       "/trainyard/v1/projects/{project}/cluster",
       "trainyard.cluster.get",
       {},
       [cluster = std::move(cluster)](const RoutedRequest& r) { return GetCluster(cluster, r); }});
}

}  // namespace trainyard::server
