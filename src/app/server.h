// The trainyard HTTP API on one port: the ml v1 jobs API, the storage v1 API over the bucket
// store (when there is one), the logging v2 entries:list API (when given the data dir),
// the Kubernetes API subset for kubectl (api/kube/api.h: TFJobs, their pods, logs and events),
// `GET /healthz` ("ok") and `GET /metrics` (Prometheus text). Usable in-process (tests) and by
// `Serve` (the daemon). Thread-safe; the collaborators must outlive the server.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/access_check.h"
#include "api/trainyard/cluster.h"
#include "api/trainyard/handlers.h"
#include "base/clock.h"
#include "base/status.h"
#include "control/job_controller.h"
#include "kube/tfjob_mapping.h"
#include "sched/sharing.h"
#include "server/http_server.h"
#include "server/router.h"
#include "store/bucket_store.h"
#include "store/job_store.h"
#include "store/token_store.h"

namespace trainyard::server {

// What trainyard v1 reads besides the running replicas (api/trainyard/cluster.h,
// api/trainyard/handlers.h); each unset: that part is not served.
struct TrainyardV1Sources {
  ClusterLookup cluster;
  ReplicaLookup recorded_replicas;  // the replicas an ended job's last run left
  // The sharing policy's admin routes (api/trainyard/sharing.h; issue #34), and the policy
  // the Kubernetes API reads for the priority classes a TFJob may name; not owned. Unset: none.
  control::SharingAdmin* sharing = nullptr;
};

class Server {
 public:
  // `store` is read only for the job counts of /metrics; `clock` times requests. `buckets` may be
  // null (no storage routes); otherwise upload bodies are spooled to its scratch dir, up to
  // `options.max_spooled_body_bytes`. `data_dir`, when not empty, is where the jobs' logs are
  // (control/job_layout.h), served by the logging v2 `entries:list` route. `replicas`, when set,
  // serves trainyard v1 (api/trainyard/handlers.h). `access.tokens`, when set, turns
  // authentication on: every request but `GET /healthz` and the discovery documents needs a bearer
  // token of that store (or a running job's own), and each route the grants api/access_check.h
  // says. `trainyard_v1` adds the cluster view and ended jobs' replicas. The web console's files
  // (server/console_assets.h) are always served, to anyone.
  Server(HttpServerOptions options, control::JobController& controller,
         const store::JobStore& store, store::BucketStore* buckets, const Clock& clock,
         std::string data_dir = {}, ReplicaLookup replicas = {},
         std::function<std::vector<kube::NodeView>()> nodes = {}, ServerAccess access = {},
         TrainyardV1Sources trainyard_v1 = {});
  ~Server();  // Stop()s
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Listens and serves on background threads; returns the bound port (the real one when
  // `options.port` is 0). Errors as `HttpServer::Start`.
  Result<int> Start();
  // Stops serving and joins the threads; idempotent.
  void Stop();

  // Every route served, in the order added: its row says what it matches, who may call it and
  // what the audit log calls it (server/router.h `Route`).
  std::vector<const Route*> Routes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainyard::server
