#include "api/trainyard/cluster.h"

#include <string>
#include <utility>

#include "api/trainyard/encode.h"
#include "server/http_message.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

HttpResponse GetCluster(const ClusterLookup& lookup, const RoutedRequest& request) {
  const std::string& project = request.Param("project");
  std::optional<control::ClusterView> view = lookup();
  if (!view) {
    return ErrorResponse(Status::Unavailable("The server's executor is not running yet."));
  }
  return JsonResponse(ClusterJson(*view, project).dump());
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
