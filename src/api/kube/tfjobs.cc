// TFJobs over the job controller: create, read, list, watch, update and patch (what client-side
// `kubectl apply` sends), delete.
#include <algorithm>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "api/kube/internal.h"
#include "api/kube/objects.h"
#include "api/kube/selectors.h"
#include "api/kube/watch.h"
#include "kube/query.h"
#include "kube/tables.h"
#include "kube/tfjob_decode.h"
#include "kube/tfjob_mapping.h"
#include "kube/tfjob_notices.h"
#include "kube/tfjob_scheduling.h"
#include "kube/tfjob_validate.h"
#include "sched/quota_check.h"

namespace trainyard::server::kube_internal {
namespace {

using nlohmann::json;

// A random RFC 4122 version-4 UUID: the object's metadata.uid.
std::string NewUid() {
  thread_local std::mt19937_64 random{std::random_device{}()};
  const std::uint64_t high = random();
  const std::uint64_t low = random();
  return fmt::format("{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}", high >> 32, (high >> 16) & 0xffff,
                     high & 0xfff, 0x8000 | ((low >> 48) & 0x3fff), low & 0xffffffffffff);
}

// Admission's refusal of a ResourceQuota excess: `tfjobs.kubeflow.org "x" is forbidden: exceeded
// quota: …`.
kube::KubeError QuotaForbidden(const kube::TFJob& tfjob, std::string_view why) {
  return kube::Forbidden(
      fmt::format("tfjobs.{} \"{}\" is forbidden: {}", kGroup, tfjob.metadata.name, why));
}

// The controller's refusal of a TFJob's create as the API answers it.
kube::KubeError CreateRefusal(const kube::TFJob& tfjob, const Status& status) {
  switch (status.code()) {
    case Code::kAlreadyExists:  // a live TFJob holds the name
      return kube::AlreadyExists(kGroup, "tfjobs", tfjob.metadata.name);
    case Code::kResourceExhausted:  // the quota changed since QuotaExcesses
      return QuotaForbidden(tfjob, "exceeded quota: " + status.message());
    case Code::kInvalidArgument:
      return MappedJobInvalid(tfjob, status);
    default:
      return kube::InternalError(status.message());
  }
}

// A Warning header (RFC 7234's warn-code 299, as the API server sends them) saying `text`.
void AddWarning(std::string_view text, HttpResponse* warn_on) {
  std::string quoted;
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      quoted += '\\';
    }
    quoted += c;
  }
  warn_on->headers.emplace_back("Warning", "299 - \"" + quoted + "\"");
}

}  // namespace

std::optional<HttpResponse> CheckUnknownFields(const Request& request,
                                               const std::vector<std::string>& unknown,
                                               HttpResponse* warn_on) {
  const std::string* mode = request.Query("fieldValidation");
  kube::KubeResult<std::vector<std::string>> warnings = kube::UnknownFieldWarnings(
      mode == nullptr ? std::nullopt : std::optional<std::string_view>(*mode), unknown);
  if (!warnings.ok()) {
    return Error(warnings.error());
  }
  for (const std::string& warning : *warnings) {
    AddWarning(warning, warn_on);
  }
  return std::nullopt;
}

void AddNotices(const kube::TFJob& tfjob, const std::vector<std::string>& decode_warnings,
                HttpResponse* warn_on) {
  std::vector<std::string> notices = decode_warnings;
  for (std::string& notice : kube::Notices(tfjob)) {
    notices.push_back(std::move(notice));
  }
  for (const std::string& notice : notices) {
    AddWarning(notice, warn_on);
  }
}

std::optional<kube::KubeError> CheckPriorityClass(const Context& context,
                                                  const kube::TFJob& tfjob) {
  const sched::SharingPolicy policy =
      context.options.sharing ? context.options.sharing() : sched::SharingPolicy{};
  return kube::PriorityClassRefusal(tfjob, policy.priority_classes);
}

// The ml v1 rules the mapped job broke (a GPU count no machine offers, …), as the TFJob's
// causes: the TFJob is what the user wrote, so the message names what to change there.
kube::KubeError MappedJobInvalid(const kube::TFJob& tfjob, const Status& status) {
  return kube::Invalid(kTFJobKind, kGroup, tfjob.metadata.name,
                       kube::MappedJobCauses(status, tfjob));
}

HttpResponse CreateTFJob(const Context& context, const Request& request) {
  return CreateTFJobFrom(context, request, request.http.body);
}

HttpResponse CreateTFJobFrom(const Context& context, const Request& request,
                             std::string_view body) {
  auto decoded = kube::DecodeTFJob(body);
  if (!decoded.ok()) {
    return Error(decoded.error());
  }
  kube::TFJob tfjob = std::move(decoded->job);
  // A create names the collection; a server-side apply that creates, the object (its name).
  if (std::optional<kube::KubeError> misplaced =
          kube::PlaceObject(tfjob.metadata, request.namespace_name, request.name)) {
    return Error(*misplaced);
  }
  HttpResponse answer;
  if (auto refused = CheckUnknownFields(request, decoded->unknown_fields, &answer)) {
    return *refused;
  }
  if (std::vector<kube::StatusCause> causes = kube::ValidateTFJob(tfjob, nullptr);
      !causes.empty()) {
    return Error(kube::Invalid(kTFJobKind, kGroup, tfjob.metadata.name, std::move(causes)));
  }
  if (std::optional<kube::KubeError> refused = CheckPriorityClass(context, tfjob)) {
    return Error(*refused);
  }
  AddNotices(tfjob, decoded->warnings, &answer);
  const std::string& project = tfjob.metadata.namespace_name;
  // The engine's job id: the name with '_' for '-', and a suffix when an earlier TFJob of the
  // same name (deleted since) or an ml v1 job holds it; the controller finds the free one.
  const model::JobIdScheme ids = kube::JobIdSchemeFor(tfjob.metadata.name);
  Result<model::Job> job = kube::ToJob(
      tfjob, kube::MappingContext{.job_id = ids.candidate(0, 0),
                                  .uid = NewUid(),
                                  .document = kube::EncodeTFJob(tfjob, nullptr),
                                  .nodes = context.options.nodes ? context.options.nodes()
                                                                 : std::vector<kube::NodeView>{}});
  if (!job.ok()) {
    return Error(MappedJobInvalid(tfjob, job.status()));
  }
  // A job that can never fit the project's quota (issue #34), as admission refuses a
  // ResourceQuota excess: 403 Forbidden, "exceeded quota: …"; dry runs too.
  if (const std::vector<sched::QuotaExcess> excesses =
          context.controller.QuotaExcesses(project, *job);
      !excesses.empty()) {
    return Error(QuotaForbidden(tfjob, sched::KubeQuotaMessage(project, excesses)));
  }
  HttpResponse response;
  if (request.Query("dryRun") != nullptr) {
    // Checked as a create is (the rules, the quota, the name), nothing written; the answer is
    // the object as submitted.
    Result<store::RevisionedJob> checked =
        context.controller.SubmitWithId(project, ids, *job, /*dry_run=*/true);
    if (!checked.ok()) {
      return Error(CreateRefusal(tfjob, checked.status()));
    }
    response = Json(RenderTFJob(context, store::RevisionedJob{project, *std::move(job), 0}), 201);
  } else {
    Result<store::RevisionedJob> created =
        context.controller.SubmitWithId(project, ids, *std::move(job));
    if (!created.ok()) {
      return Error(CreateRefusal(tfjob, created.status()));
    }
    response = Json(RenderTFJob(context, *created), 201);
  }
  response.headers = std::move(answer.headers);
  return response;
}

std::optional<kube::KubeError> CheckNamespace(std::string_view namespace_name) {
  // A namespace is a project of the same name; kube's rule for namespaces (an RFC 1123 label)
  // is also the whole of the project-id rule for them.
  if (kube::IsDns1123Label(namespace_name)) {
    return std::nullopt;
  }
  return kube::BadRequest("namespace \"" + std::string(namespace_name) +
                          "\" is not a valid name: a lowercase RFC 1123 label must consist of "
                          "lower case alphanumeric characters or '-', and must start and end with "
                          "an alphanumeric character");
}

HttpResponse GetTFJob(const Context& context, const Request& request) {
  Result<store::RevisionedJob> stored =
      context.store.GetKubeObject(request.namespace_name, kTFJobKind, request.name);
  if (!stored.ok()) {
    return stored.status().code() == Code::kNotFound
               ? Error(kube::NotFound(kGroup, "tfjobs", request.name))
               : Error(kube::InternalError(stored.status().message()));
  }
  if (request.WantsTable()) {
    return Json(kube::TFJobTable({TableRowOf(context, *stored)}, CurrentRevision(context)));
  }
  return Json(RenderTFJob(context, *stored));
}

HttpResponse ListTFJobs(const Context& context, const Request& request) {
  Result<Selector> labels = SelectorOf(request, "labelSelector", true);
  Result<Selector> fields = SelectorOf(request, "fieldSelector", false);
  if (!labels.ok() || !fields.ok()) {
    return Error(
        kube::BadRequest(!labels.ok() ? labels.status().message() : fields.status().message()));
  }
  if (request.Flag("watch")) {
    return WatchTFJobs(context, request, std::move(*labels), std::move(*fields));
  }
  // The revision first: a watch from it misses nothing written after the list was read.
  const std::int64_t revision = CurrentRevision(context);
  Result<std::vector<store::RevisionedJob>> jobs = context.store.ListKubeObjects(
      request.namespace_name, kTFJobKind, 0, /*live_only=*/true, kMaxListed);
  if (!jobs.ok()) {
    return Error(kube::InternalError(jobs.status().message()));
  }
  std::erase_if(
      *jobs, [&](const store::RevisionedJob& job) { return !SelectsTFJob(*labels, *fields, job); });
  if (request.WantsTable()) {
    std::vector<kube::TFJobRow> rows;
    for (const store::RevisionedJob& job : *jobs) {
      rows.push_back(TableRowOf(context, job));
    }
    return Json(kube::TFJobTable(rows, revision));
  }
  json items = json::array();
  for (const store::RevisionedJob& job : *jobs) {
    items.push_back(json::parse(RenderTFJob(context, job)));
  }
  return Json(json{{"apiVersion", std::string(kGroup) + "/" + request.version},
                   {"kind", "TFJobList"},
                   {"metadata", {{"resourceVersion", std::to_string(revision)}}},
                   {"items", std::move(items)}}
                  .dump());
}

}  // namespace trainyard::server::kube_internal
