#include "app/server.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <fmt/format.h>

#include "access/audit.h"
#include "access/roles.h"
#include "api/access_check.h"
#include "api/audit_trail.h"
#include "api/discovery.h"
#include "api/kube/api.h"
#include "api/logging/handlers.h"
#include "api/ml/handlers.h"
#include "api/storage/handlers.h"
#include "api/trainyard/caller.h"
#include "api/trainyard/sharing.h"
#include "api/trainyard/suspend.h"
#include "api/vertex/api.h"
#include "server/console_assets.h"
#include "server/metrics.h"
#include "server/revocable_stream.h"
#include "server/router.h"
#include "server/rpc_error.h"

namespace trainyard::server {
namespace {

// The `route` label of requests refused before they were read whole (413, 431, 400).
constexpr std::string_view kRejected = "rejected";
// The `route` label of requests refused for want of a valid token (401).
constexpr std::string_view kUnauthenticated = "unauthenticated";

// `options` with upload bodies spooled to the bucket store's scratch dir.
// What the Kubernetes API reads of the admin's sharing policy (the priority classes a TFJob may
// name), or nothing when the server has no policy.
std::function<sched::SharingPolicy()> SharingReader(const control::SharingAdmin* admin) {
  if (admin == nullptr) {
    return {};
  }
  return [admin] { return *admin->Current(); };
}

// The queue of the cluster view (a TFJob's "Pending" event); unset without one.
std::function<std::vector<control::QueuedInfo>()> QueueReader(const ClusterLookup& cluster) {
  if (!cluster) {
    return {};
  }
  return [cluster]() -> std::vector<control::QueuedInfo> {
    std::optional<control::ClusterView> view = cluster();
    return view.has_value() ? std::move(view->queue) : std::vector<control::QueuedInfo>{};
  };
}

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
       std::function<std::vector<kube::NodeView>()> nodes, ServerAccess access,
       TrainyardV1Sources trainyard_v1)
      : scheme(options.tls_cert_file.empty() ? "http" : "https"),
        store(job_store),
        clock(c),
        kube(controller, job_store, catalog::Catalog::Builtin(), c,
             KubeApiOptions{
                 .data_dir = data_dir,
                 .replicas = replicas,
                 .nodes = std::move(nodes),
                 .sharing = SharingReader(trainyard_v1.sharing),
                 .queue = QueueReader(trainyard_v1.cluster),
                 .caller = [this](const HttpRequest& request) { return Caller(request); }}),
        http(WithUploadSpool(std::move(options), buckets), *this) {
    if (access.audit != nullptr) {
      audit.emplace(*access.audit, buckets, c);
    }
    if (access.tokens != nullptr) {
      access_control.emplace(std::move(access), buckets, c);
    }
    AddMlV1Routes(router, controller);
    AddDiscoveryRoutes(router, scheme);
    AddVertexRoutes(router, controller, catalog::Catalog::Builtin(), {});
    if (buckets != nullptr) {
      AddStorageV1Routes(router, *buckets);
    }
    if (!data_dir.empty()) {
      AddLoggingV2Routes(router, std::move(data_dir));
    }
    if (replicas) {
      AddTrainyardV1Routes(router, controller, std::move(replicas),
                           std::move(trainyard_v1.recorded_replicas));
    }
    AddTrainyardV1SuspendRoutes(router, controller);
    if (trainyard_v1.sharing != nullptr) {
      AddTrainyardV1SharingRoutes(router, *trainyard_v1.sharing);
    }
    if (trainyard_v1.cluster) {
      cluster = trainyard_v1.cluster;
      AddTrainyardV1ClusterRoute(router, std::move(trainyard_v1.cluster));
    }
    kube.AddRoutes(router);
    router.AddDialect(KubeApi::Dialect());
    AddTrainyardV1CallerRoute(
        router, [this](const HttpRequest& request) { return Caller(request); },
        [this, buckets]() { return HeldProjects(buckets); });
    router.Add({.method = "GET",
                .pattern = "/healthz",
                .name = "healthz",
                .handler =
                    [](const RoutedRequest&) {
                      return HttpResponse{
                          .status = 200, .content_type = "text/plain; charset=utf-8", .body = "ok"};
                    },
                .open = true});
    router.Add(
        {.method = "GET",
         .pattern = "/metrics",
         .name = "metrics",
         .handler =
             [this](const RoutedRequest&) {
               auto counts = store.CountByState();
               if (!counts.ok()) {
                 return ErrorResponse(counts.status());
               }
               std::string body = metrics.Render(*counts);
               if (std::optional<control::ClusterView> view = cluster ? cluster() : std::nullopt) {
                 body += RenderProjectMetrics(view->sharing, view->use,
                                              control::WaitingByProject(*view));
               }
               return HttpResponse{.status = 200,
                                   .content_type = "text/plain; version=0.0.4; charset=utf-8",
                                   .body = std::move(body)};
             },
         .access = {{.permission = "trainyard.metrics.get", .from = ProjectFrom::kServer}},
         .audit = {.service = kTrainyardService,
                   .method = "trainyard.metrics.get",
                   .resource = AuditResource::kServer}});
    CheckRoutes();
  }

  // The caller of a request the access check let through; nullopt when no tokens are checked.
  std::optional<access::Principal> Caller(const HttpRequest& request) const {
    if (!access_control) {
      return std::nullopt;
    }
    auto caller = access_control->Authenticate(request);
    if (auto* principal = std::get_if<access::Principal>(&caller)) {
      return std::move(*principal);
    }
    return access::Principal{};  // cannot happen after the check: then it may see nothing
  }

  // The projects that hold jobs or buckets (the console's picker).
  Result<std::vector<std::string>> HeldProjects(const store::BucketStore* buckets) const {
    Result<std::vector<std::string>> projects = store.Projects();
    if (!projects.ok() || buckets == nullptr) {
      return projects;
    }
    Result<std::vector<std::string>> bucket_projects = buckets->BucketProjects();
    if (!bucket_projects.ok()) {
      return bucket_projects.status();
    }
    projects->insert(projects->end(), bucket_projects->begin(), bucket_projects->end());
    return projects;
  }

  // Every route's row has its access rules and audit method, naming permissions roles.json
  // knows: a route without them would be refused to everyone once tokens are on, or go
  // unrecorded.
  void CheckRoutes() const {
    std::vector<std::string> problems;
    for (const Route* route : router.Routes()) {
      for (std::string& problem : RouteProblems(*route)) {
        problems.push_back(std::move(problem));
      }
    }
    TY_CHECK(problems.empty()) << fmt::format("{}", fmt::join(problems, "; "));
  }

  // Whether `request` is for an open route (server/router.h `Route::open`): no token needed.
  bool IsOpen(const HttpRequest& request) const {
    const Route* route = router.Find(request);
    return route != nullptr && route->open;
  }

  // Notes `routed` for the audit log when it must be (api/audit_trail.h).
  void Note(const RoutedRequest& routed, const access::Principal* principal, bool refused,
            AuditNote& note) const {
    if (audit && routed.matched != nullptr &&
        AuditTrail::MustNote(routed.matched->audit, refused, note.unauthenticated)) {
      audit->Note(routed, principal, note);
      note.refused = refused;
    }
  }

  // `refused`, the answer to a request without a valid token, noted for the audit log.
  HttpResponse Unauthenticated(const HttpRequest& request, HttpResponse refused,
                               AuditNote& note) const {
    note.unauthenticated = true;
    if (audit) {  // route it only to name the call it refuses
      router.Dispatch(request, [&](const RoutedRequest& routed) {
        Note(routed, nullptr, true, note);
        return std::optional<HttpResponse>(HttpResponse{.status = refused.status});
      });
    }
    refused.route = std::string(kUnauthenticated);
    return refused;
  }

  HttpResponse Answer(const HttpRequest& request, AuditNote& note) const {
    if (ConsoleServes(request.target)) {
      return ConsoleAnswer(request);
    }
    if (IsOpen(request)) {
      return router.Dispatch(request);
    }
    if (!access_control) {
      note.principal = std::string(access::kAnonymous);
      return router.Dispatch(request, [&](const RoutedRequest& routed) {
        Note(routed, nullptr, false, note);
        return std::optional<HttpResponse>();
      });
    }
    std::variant<access::Principal, HttpResponse> caller = access_control->Authenticate(request);
    if (auto* refused = std::get_if<HttpResponse>(&caller)) {
      return Unauthenticated(request, std::move(*refused), note);
    }
    const access::Principal& principal = std::get<access::Principal>(caller);
    note.principal = principal.name;
    return router.Dispatch(request, [&](const RoutedRequest& routed) {
      std::optional<HttpResponse> refused = access_control->Authorize(principal, routed);
      Note(routed, &principal, refused.has_value(), note);
      return refused;
    });
  }

  // Authentication before the body (issue #31): a request that needs a token and has no valid
  // one is answered from its head alone (audited and counted as any refusal), so an
  // unauthenticated client never has a body read, held in memory or spooled to disk.
  // Authorization, which may need the body, stays in `Answer`.
  Admission Admit(const HttpRequest& head) override {
    if (!access_control || ConsoleServes(head.target) || IsOpen(head)) {
      return {};
    }
    const MonoTime start = clock.Monotonic();
    std::variant<access::Principal, HttpResponse> caller = access_control->Authenticate(head);
    if (std::holds_alternative<access::Principal>(caller)) {
      return {.authenticated = true};
    }
    AuditNote note;
    HttpResponse refused = Unauthenticated(head, std::get<HttpResponse>(std::move(caller)), note);
    Finish(head, refused, note, start);
    return {.refusal = std::move(refused)};
  }

  // A stream answered to a token ends once the token is revoked or expires (issue #31). A store
  // error while re-checking leaves it open: the next check decides.
  void EndWithToken(const HttpRequest& request, HttpResponse& response) const {
    if (!response.stream || !access_control || IsOpen(request)) {
      return;
    }
    HttpRequest head{
        .method = request.method, .target = request.target, .headers = request.headers};
    response.stream = RevocableStream(
        std::move(response.stream),
        [this, head = std::move(head)] {
          auto caller = access_control->Authenticate(head);
          const auto* refused = std::get_if<HttpResponse>(&caller);
          return refused == nullptr || refused->status != 401;
        },
        clock);
  }

  HttpResponse Handle(const HttpRequest& request) override {
    const MonoTime start = clock.Monotonic();
    AuditNote note;
    HttpResponse response = Answer(request, note);
    EndWithToken(request, response);
    Finish(request, response, note, start);
    return response;
  }

  // Records the answer to `request`, begun at `start`, in the audit log and the metrics.
  void Finish(const HttpRequest& request, const HttpResponse& response, const AuditNote& note,
              MonoTime start) {
    if (audit) {
      audit->Record(request, response, note);
    }
    const std::chrono::duration<double> elapsed = clock.Monotonic() - start;
    metrics.Record(response.route, response.status, elapsed.count());
  }

  HttpResponse Reject(int http_status, const Status& why) override {
    HttpResponse response = ErrorResponse(http_status, why);
    response.route = std::string(kRejected);
    metrics.Record(response.route, response.status, 0);
    return response;
  }

  std::string scheme;  // how clients reach this server: "http", or "https" with TLS
  const store::JobStore& store;
  const Clock& clock;
  Router router;
  KubeApi kube;
  Metrics metrics;
  ClusterLookup cluster;  // the executor's view, for the per-project metrics; unset: none
  std::optional<AccessControl> access_control;  // set when tokens are checked
  std::optional<AuditTrail> audit;              // set when calls are recorded
  HttpServer http;  // last: destroyed (and stopped) first, while the rest still exists
};

Server::Server(HttpServerOptions options, control::JobController& controller,
               const store::JobStore& store, store::BucketStore* buckets, const Clock& clock,
               std::string data_dir, ReplicaLookup replicas,
               std::function<std::vector<kube::NodeView>()> nodes, ServerAccess access,
               TrainyardV1Sources trainyard_v1)
    : impl_(std::make_unique<Impl>(std::move(options), controller, store, buckets, clock,
                                   std::move(data_dir), std::move(replicas), std::move(nodes),
                                   std::move(access), std::move(trainyard_v1))) {}

Server::~Server() {
  Stop();
}

Result<int> Server::Start() {
  return impl_->http.Start();
}

void Server::Stop() {
  impl_->http.Stop();
}

std::vector<const Route*> Server::Routes() const {
  return impl_->router.Routes();
}

}  // namespace trainyard::server
