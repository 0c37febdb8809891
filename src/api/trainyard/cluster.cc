#include "api/trainyard/cluster.h"

#include <set>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

#include "sched/project_share.h"
#include "sched/sharing_json.h"
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

// `amounts` as `use` and `borrowed` are shown (see the header).
json AmountsJson(const sched::Amounts& amounts) {
  return {{"accelerators", amounts.devices},
          {"cpus", amounts.cpus},
          {"memory", sched::MemoryQuantity(amounts.memory_mib)},
          {"jobs", amounts.jobs}};
}

// Each project's quota, use, borrowed, share and waiting jobs (see the header).
json Projects(const ClusterView& view) {
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
  json projects = json::array();
  for (const std::string& project : names) {
    const sched::ProjectQuota* quota = view.sharing.QuotaOf(project);
    const auto held = view.use.find(project);
    const sched::Amounts use = held != view.use.end() ? held->second : sched::Amounts{};
    const sched::ProjectShare standing =
        sched::ShareOfProject(use, quota, capacity, view.accounting);
    const auto queued = waiting.find(project);
    projects.push_back(
        {{"project", project},
         {"quota", quota != nullptr ? json::parse(sched::EncodeProjectQuota(*quota)) : json()},
         {"use", AmountsJson(use)},
         {"borrowed", AmountsJson(standing.borrowed)},
         {"share", standing.share},
         {"weight", standing.weight},
         {"waitingJobs", queued != waiting.end() ? queued->second : 0}});
  }
  return projects;
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
      {"nodes", std::move(nodes)},
      {"queue", std::move(queue)},
      {"otherProjectsQueued", others},
      {"projects",
       Projects(*view)}}.dump());
}

}  // namespace

std::map<std::string, int, std::less<>> WaitingByProject(const ClusterView& view) {
  std::map<std::string, int, std::less<>> waiting;
  for (const control::QueuedInfo& queued : view.queue) {
    ++waiting[queued.project];
  }
  return waiting;
}

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
