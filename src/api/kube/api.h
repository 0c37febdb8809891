// The Kubernetes API subset the real `kubectl` needs, served at the server's root so a
// kubeconfig's `server:` is the URL gcloud uses (`trainyard kubeconfig` prints one):
//
//   GET  /version, /api, /api/v1, /apis, /apis/kubeflow.org[/v1|/v1beta2]   discovery
//   GET  /openapi/v3[/apis/kubeflow.org/{v}]   enough OpenAPI for kubectl to know that the
//        server validates fields itself (fieldValidation), so `kubectl apply` validates here
//   /apis/kubeflow.org/{v}[/namespaces/{ns}]/tfjobs[/{name}[/status]]   TFJobs (v1 and v1beta2):
//        create, get, list, watch, update, merge/JSON patch (client-side apply), server-side
//        apply (simplified: no managedFields, kube/tfjob_update.h), delete, deletecollection
//   GET  /api/v1[/namespaces/{ns}]/pods[/{name}[/log|/status]]   each replica as a pod, its logs
//        (follow), its status subresource (the whole pod, as Kubernetes answers it)
//   GET  /api/v1[/namespaces/{ns}]/events   the service's messages about a TFJob as events
//   GET  /api/v1/namespaces[/{ns}]   namespaces (a namespace is a trainyard project)
//   POST /apis/authorization.k8s.io/v1/selfsubject{access,rules}reviews   `kubectl auth can-i`
//        [--list], answered from the access table (api/kube/reviews.h)
//
// A TFJob is a trainyard job (kube/ maps it): it is queued, placed, logged and restarted like any
// job and shows in `gcloud ai-platform jobs list`. Errors are Kubernetes `Status` objects
// (kube/kube_status.h). Each path and verb is a row of the server's one `Router`, named
// ("kubeflow.tfjobs.create", "core.pods.log", …) like the other APIs' routes; its row says the
// permission the verb needs in the namespace's project, the verb and resource a 403 names, and
// the k8s.io audit method. The rules live in kube/ (pure) and control/; this is the wire.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "api/trainyard/caller.h"
#include "api/trainyard/handlers.h"
#include "base/clock.h"
#include "catalog/catalog.h"
#include "control/job_controller.h"
#include "control/reconcile/queue.h"
#include "kube/tfjob_mapping.h"
#include "sched/sharing.h"
#include "server/http_message.h"
#include "server/router.h"
#include "store/job_store.h"

namespace trainyard::server {

struct KubeApiOptions {
  std::string data_dir;  // where the jobs' logs are (control/job_layout.h)
  ReplicaLookup replicas;
  // The nodes a TFJob may run on (labels and accelerators), for its GPUs' type and selectors.
  std::function<std::vector<kube::NodeView>()> nodes;
  std::string node_name = "localhost";  // spec.nodeName of the pods
  // The admin's sharing policy (issue #34), read for the priority classes a TFJob may name;
  // unset: none, so every class is refused.
  std::function<sched::SharingPolicy()> sharing;
  // The queue as the last pass left it (issue #34): a waiting TFJob's reason is one more of its
  // events ("Pending", as Kueue names a workload that waits for quota). Unset: none.
  std::function<std::vector<control::QueuedInfo>()> queue;
  // The caller of a request, for `kubectl auth can-i` (api/kube/reviews.h); unset, or
  // nullopt: the server checks no tokens.
  CallerLookup caller;
};

// The 401 answer, as a Kubernetes API server words it.
HttpResponse KubeUnauthorized();

// The 403 answer as RBAC words it (kube::ForbiddenVerb): `user` may not `verb` `resource` of
// `group` ("" for the core group), named `name` ("" for a collection) in `namespace_name` (""
// for every namespace).
HttpResponse KubeForbidden(std::string_view user, std::string_view verb, std::string_view group,
                           std::string_view resource, std::string_view name,
                           std::string_view namespace_name);

// The access rule of each Kubernetes route, in the route table's order (a route added once per
// kubeflow.org version appears once): what `kubectl auth can-i` answers from
// (api/kube/reviews.h), so it and the access check read the same rows.
std::span<const RouteAccess> KubeRouteAccess();

// Whether a routed Kubernetes list asks to watch (`?watch=1`, as the API server reads it).
bool KubeWatches(const RoutedRequest& request);

class KubeApi {
 public:
  // The collaborators must outlive the API.
  KubeApi(control::JobController& controller, const store::JobStore& store,
          const catalog::Catalog& catalog, const Clock& clock, KubeApiOptions options);
  ~KubeApi();
  KubeApi(const KubeApi&) = delete;
  KubeApi& operator=(const KubeApi&) = delete;

  // Whether `target` is a Kubernetes path (/version, /api…, /apis…, /openapi/…).
  static bool Serves(std::string_view target);

  // How the Kubernetes paths answer the router's refusals (a `Status`: 400, 404 "the server could
  // not find the requested resource", 405) and take query parameters (any: a verb ignores those
  // it does not read).
  static ApiDialect Dialect();

  // Adds a route for each Kubernetes path and verb to `router` ("kubeflow.tfjobs.create",
  // "core.pods.log", …); this API must outlive it. Discovery needs any valid token; every other
  // route a permission in the path's namespace (the project), and a 403 names the Kubernetes
  // verb and resource. The router's access check runs first; a malformed namespace is then
  // refused before the handler runs.
  void AddRoutes(Router& router) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainyard::server
