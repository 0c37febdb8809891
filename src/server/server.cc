#include "server/server.h"

#include <chrono>
#include <string>

#include "server/kube_api.h"
#include "server/logging_v2_handlers.h"
#include "server/metrics.h"
#include "server/ml_v1_handlers.h"
#include "server/router.h"
#include "server/rpc_error.h"
#include "server/storage_v1_handlers.h"

namespace trainyard::server {
namespace {

// The `route` label of requests refused before they were read whole (413, 431, 400).
constexpr std::string_view kRejected = "rejected";

// `options` with upload bodies spooled to the bucket store's scratch dir.
HttpServerOptions WithUploadSpool(HttpServerOptions options, const store::BucketStore* buckets) {
  if (buckets != nullptr) {
    options.spool_prefixes = StorageUploadPrefixes();
    options.spool_dir = buckets->scratch_dir();
  }
  return options;
}

}  // namespace

struct Server::Impl final : HttpHandler {
  Impl(HttpServerOptions options, control::JobController& controller,
       const store::JobStore& job_store, store::BucketStore* buckets, const Clock& c,
       std::string data_dir, ReplicaLookup replicas,
       std::function<std::vector<kube::NodeView>()> nodes)
      : store(job_store),
        clock(c),
        kube(controller, job_store, catalog::Catalog::Builtin(), c,
             KubeApiOptions{.data_dir = data_dir, .replicas = replicas, .nodes = std::move(nodes)}),
        http(WithUploadSpool(std::move(options), buckets), *this) {
    AddMlV1Routes(router, controller);
    if (buckets != nullptr) {
      AddStorageV1Routes(router, *buckets);
    }
    if (!data_dir.empty()) {
      AddLoggingV2Routes(router, std::move(data_dir));
    }
    if (replicas) {
      AddTrainyardV1Routes(router, controller, std::move(replicas));
    }
    router.Add({"GET", "/healthz", "healthz", {}, [](const RoutedRequest&) {
                  return HttpResponse{
                      .status = 200, .content_type = "text/plain; charset=utf-8", .body = "ok"};
                }});
    router.Add({"GET", "/metrics", "metrics", {}, [this](const RoutedRequest&) {
                  auto counts = store.CountByState();
                  if (!counts.ok()) {
                    return ErrorResponse(counts.status());
                  }
                  return HttpResponse{.status = 200,
                                      .content_type = "text/plain; version=0.0.4; charset=utf-8",
                                      .body = metrics.Render(*counts)};
                }});
  }

  HttpResponse Handle(const HttpRequest& request) override {
    const MonoTime start = clock.Monotonic();
    HttpResponse response =
        KubeApi::Serves(request.target) ? kube.Handle(request) : router.Dispatch(request);
    const std::chrono::duration<double> elapsed = clock.Monotonic() - start;
    metrics.Record(response.route, response.status, elapsed.count());
    return response;
  }

  HttpResponse Reject(int http_status, const Status& why) override {
    HttpResponse response = ErrorResponse(http_status, why);
    response.route = std::string(kRejected);
    metrics.Record(response.route, response.status, 0);
    return response;
  }

  const store::JobStore& store;
  const Clock& clock;
  Router router;
  KubeApi kube;
  Metrics metrics;
  HttpServer http;  // last: destroyed (and stopped) first, while the rest still exists
};

Server::Server(HttpServerOptions options, control::JobController& controller,
               const store::JobStore& store, store::BucketStore* buckets, const Clock& clock,
               std::string data_dir, ReplicaLookup replicas,
               std::function<std::vector<kube::NodeView>()> nodes)
    : impl_(std::make_unique<Impl>(std::move(options), controller, store, buckets, clock,
                                   std::move(data_dir), std::move(replicas), std::move(nodes))) {}

Server::~Server() {
  Stop();
}

Result<int> Server::Start() {
  return impl_->http.Start();
}

void Server::Stop() {
  impl_->http.Stop();
}

}  // namespace trainyard::server
