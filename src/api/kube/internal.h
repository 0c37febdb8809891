// Internal to the Kubernetes API (api/kube/*.cc): what its handlers share.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/kube/api.h"
#include "api/kube/selectors.h"
#include "base/clock.h"
#include "catalog/catalog.h"
#include "control/job_controller.h"
#include "kube/kube_status.h"
#include "kube/tfjob.h"
#include "server/http_message.h"
#include "store/job_store.h"

namespace trainyard::server::kube_internal {

using kube::kGroup;
using kube::kTFJobKind;
using kube::kTFJobResource;

// The most TFJobs one list, or the pods and events derived from them, reads from the store.
inline constexpr int kMaxListed = 1000;

struct Context {
  control::JobController& controller;
  const store::JobStore& store;
  const catalog::Catalog& catalog;
  const Clock& clock;
  KubeApiOptions options;
};

// One request, its path already matched: the API version ("v1", "v1beta2"; core: "v1"), the
// namespace ("" for every namespace), the object's name ("" for the collection).
struct Request {
  const HttpRequest& http;
  std::vector<std::pair<std::string, std::string>> query;
  std::string version;
  std::string namespace_name;
  std::string name;

  // The last value of query parameter `key`; nullptr when absent.
  const std::string* Query(std::string_view key) const;
  bool Flag(std::string_view key) const;  // as the API server reads it: kube/query.h
  // Whether the client asked for a server-side Table (kubectl get).
  bool WantsTable() const;
};

// The selector the query parameter `key` holds ("labelSelector" parsed as labels, else as
// fields); absent: one that selects everything.
Result<Selector> SelectorOf(const Request& request, std::string_view key, bool labels);

HttpResponse Json(std::string body, int status = 200);
HttpResponse Error(const kube::KubeError& error);

// The project a namespace is (the same words); a namespace that cannot be one is refused.
std::optional<kube::KubeError> CheckNamespace(std::string_view namespace_name);

// What the request's fieldValidation makes of the `unknown` fields (kube::UnknownFieldWarnings):
// its 400, or a Warning header per warning added to `warn_on`.
std::optional<HttpResponse> CheckUnknownFields(const Request& request,
                                               const std::vector<std::string>& unknown,
                                               HttpResponse* warn_on);

// A Warning header for each field the TFJob sets that trainyard acts on differently
// (kube/tfjob_notices.h), and for each of the decoder's `decode_warnings`.
void AddNotices(const kube::TFJob& tfjob, const std::vector<std::string>& decode_warnings,
                HttpResponse* warn_on);

// The 403 for a TFJob naming a priority class the admin's table lacks (kube/tfjob_scheduling.h);
// the table is `options.sharing`'s (none when unset: every class is refused).
std::optional<kube::KubeError> CheckPriorityClass(const Context& context, const kube::TFJob& tfjob);

// The ml v1 rules a TFJob's mapped job broke, as the TFJob's 422.
kube::KubeError MappedJobInvalid(const kube::TFJob& tfjob, const Status& status);

// Handlers (tfjobs.cc, pods.cc, events.cc).
HttpResponse CreateTFJob(const Context& context, const Request& request);
// Creates the TFJob in `body` (JSON): a create, or a server-side apply of an absent object.
HttpResponse CreateTFJobFrom(const Context& context, const Request& request, std::string_view body);
HttpResponse GetTFJob(const Context& context, const Request& request);
HttpResponse ListTFJobs(const Context& context, const Request& request);
HttpResponse ReplaceTFJob(const Context& context, const Request& request);
HttpResponse PatchTFJob(const Context& context, const Request& request);
HttpResponse DeleteTFJob(const Context& context, const Request& request);
HttpResponse DeleteTFJobs(const Context& context, const Request& request);  // deletecollection
HttpResponse ListPods(const Context& context, const Request& request);
HttpResponse GetPod(const Context& context, const Request& request);
HttpResponse PodLog(const Context& context, const Request& request);
HttpResponse ListEvents(const Context& context, const Request& request);
// reviews.cc: `kubectl auth can-i` (api/kube/reviews.h)
HttpResponse CreateAccessReview(const Context& context, const Request& request);
HttpResponse CreateRulesReview(const Context& context, const Request& request);

}  // namespace trainyard::server::kube_internal
