// The Kubernetes API subset the real `kubectl` needs, served at the server's root so a
// kubeconfig's `server:` is the URL gcloud uses (`trainyard kubeconfig` prints one):
//
//   GET  /version, /api, /api/v1, /apis, /apis/kubeflow.org[/v1|/v1beta2]   discovery
//   GET  /openapi/v3[/apis/kubeflow.org/{v}]   enough OpenAPI for kubectl to know that the
//        server validates fields itself (fieldValidation), so `kubectl apply` validates here
//   /apis/kubeflow.org/{v}[/namespaces/{ns}]/tfjobs[/{name}[/status]]   TFJobs (v1 and v1beta2):
//        create, get, list, watch, update, merge/JSON patch (client-side apply), delete
//   GET  /api/v1[/namespaces/{ns}]/pods[/{name}[/log|/status]]   each replica as a pod, its logs
//        (follow), its status subresource (the whole pod, as Kubernetes answers it)
//   GET  /api/v1[/namespaces/{ns}]/events   the service's messages about a TFJob as events
//   GET  /api/v1/namespaces[/{ns}]   namespaces (a namespace is a trainyard project)
//
// A TFJob is a trainyard job (kube/ maps it): it is queued, placed, logged and restarted like any
// job and shows in `gcloud ai-platform jobs list`. Errors are Kubernetes `Status` objects
// (kube/kube_status.h). The rules live in kube/ (pure) and control/; this is the wire.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "catalog/catalog.h"
#include "control/job_controller.h"
#include "kube/tfjob_mapping.h"
#include "sched/sharing.h"
#include "server/http_message.h"
#include "server/trainyard_v1_handlers.h"
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
};

// Who calls and what they may do (issue #17, server/access_check.h): each verb needs a permission
// of access/data/roles.json in the namespace's project (get, list and watch of TFJobs and pods:
// ml.jobs.get/list; create: ml.jobs.create; update and patch: ml.jobs.update; delete:
// ml.jobs.cancel; logs and events: logging.logEntries.list); without a namespace (`-A`) only a
// role that spans projects may. Discovery and namespaces need only a valid token.
struct KubeCaller {
  std::string user;
  std::function<bool(std::string_view permission, std::string_view project)> allows;
};

// The 401 answer, as a Kubernetes API server words it.
HttpResponse KubeUnauthorized();

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

  // Thread-safe. The answer's `route` is a metrics label ("kube.tfjobs.create", …). With a
  // `caller`, each verb is checked against its grants first (403 `Forbidden` as RBAC words it).
  HttpResponse Handle(const HttpRequest& request, const KubeCaller* caller = nullptr) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainyard::server
