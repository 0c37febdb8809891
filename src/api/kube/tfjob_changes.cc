// Changing and deleting TFJobs: update (PUT), merge and JSON patches (what client-side `kubectl
// apply`, `kubectl patch` and `kubectl edit` send), server-side apply (`kubectl apply
// --server-side`), delete and deletecollection (`kubectl delete tfjobs --all`, `-l`).
//
// What may change is kube::ApplyUpdate's rule (kube/tfjob_update.h); this applies it to the
// stored job through the controller.
//
// Server-side apply is simplified (README, "kubectl"): trainyard keeps no managedFields, so an
// apply sets the fields its manifest names over the object as it is (a JSON merge patch) and
// leaves the others; it never reports a conflict, and `force` changes nothing.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/kube/internal.h"
#include "api/kube/objects.h"
#include "api/kube/selectors.h"
#include "kube/tfjob_decode.h"
#include "kube/tfjob_mapping.h"
#include "kube/tfjob_update.h"
#include "kube/tfjob_validate.h"

namespace trainyard::server::kube_internal {
namespace {

using nlohmann::json;

HttpResponse StoreError(const Status& status, std::string_view name) {
  if (status.code() == Code::kNotFound) {
    return Error(kube::NotFound(kGroup, kTFJobResource, name));
  }
  if (status.code() == Code::kAborted) {
    return Error(kube::Conflict(kGroup, kTFJobResource, name,
                                "the object has been modified; please apply your changes to the "
                                "latest version and try again"));
  }
  return Error(kube::InternalError(status.message()));
}

std::optional<kube::DecodedTFJob> StoredTFJob(const store::RevisionedJob& current) {
  kube::KubeResult<kube::DecodedTFJob> decoded =
      kube::DecodeTFJob(current.job.extras->kube->document);
  if (!decoded.ok()) {
    return std::nullopt;
  }
  return std::move(*decoded);
}

// Replaces the TFJob `request.name` with the object in `body` (JSON).
HttpResponse Replace(const Context& context, const Request& request, std::string_view body,
                     const store::RevisionedJob& current) {
  kube::KubeResult<kube::DecodedTFJob> decoded = kube::DecodeTFJob(body);
  if (!decoded.ok()) {
    return Error(decoded.error());
  }
  kube::TFJob submitted = std::move(decoded->job);
  if (std::optional<kube::KubeError> misplaced =
          kube::PlaceObject(submitted.metadata, request.namespace_name, request.name)) {
    return Error(*misplaced);
  }
  if (const Status fresh =
          kube::CheckResourceVersion(submitted.metadata.resource_version, current.revision);
      !fresh.ok()) {
    return StoreError(fresh, request.name);
  }
  HttpResponse answer;
  if (auto refused = CheckUnknownFields(request, decoded->unknown_fields, &answer)) {
    return *refused;
  }
  const std::optional<kube::DecodedTFJob> old = StoredTFJob(current);
  if (!old.has_value()) {
    return Error(kube::InternalError("the stored TFJob " + request.name + " cannot be read"));
  }
  const bool started = kube::HasStarted(current.job);
  kube::KubeResult<kube::TFJobUpdate> update =
      kube::ApplyUpdate(old->job, std::move(submitted), started);
  if (!update.ok()) {
    return Error(update.error());
  }
  const kube::TFJob& tfjob = update->job;
  // A class named anew is admitted as on create; one the job already had stays (even if the
  // admin has removed it since: it then counts as priority 0).
  if (update->priority_class_changed) {
    if (std::optional<kube::KubeError> refused = CheckPriorityClass(context, tfjob)) {
      return Error(*refused);
    }
  }
  AddNotices(tfjob, decoded->warnings, &answer);
  const model::KubeObject& stored = *current.job.extras->kube;
  Result<model::Job> mapped = kube::ToJob(
      tfjob, kube::MappingContext{.job_id = current.job.job_id,
                                  .uid = stored.uid,
                                  .document = kube::EncodeTFJob(tfjob, nullptr),
                                  .nodes = context.options.nodes ? context.options.nodes()
                                                                 : std::vector<kube::NodeView>{},
                                  .catalog = &context.catalog});
  if (!mapped.ok()) {
    return Error(MappedJobInvalid(tfjob, mapped.status()));
  }
  const bool spec_changed = update->spec_changed;
  // The stored job the update makes (kube::MergeReplacement), checked and written by the
  // controller, which answers it with the write's revision; a dry run writes nothing and answers
  // the object as it is.
  Result<store::RevisionedJob> changed = context.controller.Update(
      current.project, current.job.job_id,
      [&](const model::Job& now) -> Result<std::optional<model::Job>> {
        std::optional<model::Job> next =
            kube::MergeReplacement(now, *mapped, started, spec_changed);
        if (!next.has_value()) {
          return Status::NotFound("gone");  // deleted, and a TFJob of the name created anew
        }
        return next;
      },
      request.Query("dryRun") != nullptr);
  if (changed.status().code() == Code::kInvalidArgument) {
    return Error(MappedJobInvalid(tfjob, changed.status()));
  }
  if (!changed.ok()) {
    return StoreError(changed.status(), request.name);
  }
  HttpResponse response = Json(RenderTFJob(context, *changed));
  response.headers = std::move(answer.headers);
  return response;
}

Result<store::RevisionedJob> Current(const Context& context, const Request& request) {
  return context.store.GetKubeObject(request.namespace_name, kTFJobKind, request.name);
}

constexpr std::string_view kApplyPatch = "application/apply-patch+yaml";

// The options an apply patch needs, and those only it takes (apimachinery's
// ValidatePatchOptions): nullopt when `request` may go on.
std::optional<HttpResponse> CheckPatchOptions(const Request& request, bool apply) {
  const std::string* manager = request.Query("fieldManager");
  if (apply && (manager == nullptr || manager->empty())) {
    return Error(
        kube::Invalid("PatchOptions", "meta.k8s.io", "",
                      {kube::RequiredCause("fieldManager", "is required for apply patch")}));
  }
  if (!apply && request.Query("force") != nullptr) {
    return Error(
        kube::Invalid("PatchOptions", "meta.k8s.io", "",
                      {kube::ForbiddenCause("force", "may not be specified for non-apply patch")}));
  }
  return std::nullopt;
}

// Marks `current` deleted and stops its replicas, and answers the job as the controller stored
// it (a dry run: `current`, nothing written); the object leaves the API once its job has ended (a
// watch says DELETED).
Result<store::RevisionedJob> MarkDeleted(const Context& context,
                                         const store::RevisionedJob& current, bool dry_run) {
  if (dry_run) {
    return current;
  }
  const WallTime now = context.clock.Now();
  return context.controller.MarkAndCancel(
      current.project, current.job.job_id,
      [now](const model::Job& job) -> Result<std::optional<model::Job>> {
        return kube::MarkDeleted(job, now);
      });
}

}  // namespace

HttpResponse ReplaceTFJob(const Context& context, const Request& request) {
  Result<store::RevisionedJob> current = Current(context, request);
  if (!current.ok()) {
    return StoreError(current.status(), request.name);
  }
  return Replace(context, request, request.http.body, *current);
}

HttpResponse PatchTFJob(const Context& context, const Request& request) {
  const std::string type = request.http.content_type.substr(0, request.http.content_type.find(';'));
  const bool apply = type == kApplyPatch;
  if (std::optional<HttpResponse> refused = CheckPatchOptions(request, apply)) {
    return *refused;
  }
  Result<store::RevisionedJob> current = Current(context, request);
  if (apply) {
    const bool absent = !current.ok() && current.status().code() == Code::kNotFound;
    if (!current.ok() && !absent) {
      return StoreError(current.status(), request.name);
    }
    kube::KubeResult<std::string> object = kube::ServerSideApplyBase(
        absent ? std::string_view("{}") : current->job.extras->kube->document, request.http.body);
    if (!object.ok()) {
      return Error(object.error());
    }
    // An apply creates what is absent, under the URL's name (CreateTFJobFrom checks it).
    return absent ? CreateTFJobFrom(context, request, *object)
                  : Replace(context, request, *object, *current);
  }
  if (!current.ok()) {
    return StoreError(current.status(), request.name);
  }
  json patch;
  try {
    patch = json::parse(request.http.body);
  } catch (const json::exception& e) {
    return Error(kube::BadRequest(std::string("the patch is not JSON: ") + e.what()));
  }
  // The object as a GET shows it, without the status (which is trainyard's to write).
  json object = json::parse(RenderTFJob(context, *current));
  object.erase("status");
  try {
    if (type == "application/merge-patch+json") {
      object.merge_patch(patch);
    } else if (type == "application/json-patch+json") {
      object = object.patch(patch);
    } else if (type == "application/strategic-merge-patch+json") {
      return Error(kube::UnsupportedMediaType(
          "strategic merge patch is not supported for TFJobs (a custom resource); use "
          "--type merge or --type json"));
    } else {
      return Error(kube::UnsupportedMediaType(type));
    }
  } catch (const json::exception& e) {
    return Error(kube::Invalid(kTFJobKind, kGroup, request.name,
                               {kube::InvalidCause("patch", "", e.what())}));
  }
  // A patch applies to the object as it is: its resourceVersion is the current one unless the
  // patch itself names another (then it must match, as Kubernetes checks).
  return Replace(context, request, object.dump(), *current);
}

HttpResponse DeleteTFJob(const Context& context, const Request& request) {
  Result<store::RevisionedJob> current = Current(context, request);
  if (!current.ok()) {
    return StoreError(current.status(), request.name);
  }
  Result<store::RevisionedJob> after =
      MarkDeleted(context, *current, request.Query("dryRun") != nullptr);
  if (!after.ok()) {
    return StoreError(after.status(), request.name);
  }
  // An object whose job has ended has left the API: the answer is then a Status.
  if (!store::IsLiveKubeObject(after->job)) {
    return Json(kube::EncodeSuccessStatus(request.name, kGroup, kTFJobResource,
                                          after->job.extras->kube->uid));
  }
  return Json(RenderTFJob(context, *after));
}

}  // namespace trainyard::server::kube_internal

namespace trainyard::server::kube_internal {

// DELETE on the collection: every TFJob of the namespace its selectors choose, deleted as one
// DELETE deletes it; the answer lists them as they are once marked (a TFJobList).
HttpResponse DeleteTFJobs(const Context& context, const Request& request) {
  Result<Selector> labels = SelectorOf(request, "labelSelector", true);
  Result<Selector> fields = SelectorOf(request, "fieldSelector", false);
  if (!labels.ok() || !fields.ok()) {
    return Error(
        kube::BadRequest(!labels.ok() ? labels.status().message() : fields.status().message()));
  }
  Result<std::vector<store::RevisionedJob>> jobs = context.store.ListKubeObjects(
      request.namespace_name, kTFJobKind, 0, /*live_only=*/true, kMaxListed);
  if (!jobs.ok()) {
    return Error(kube::InternalError(jobs.status().message()));
  }
  const bool dry_run = request.Query("dryRun") != nullptr;
  json items = json::array();
  for (const store::RevisionedJob& job : *jobs) {
    if (!SelectsTFJob(*labels, *fields, job)) {
      continue;
    }
    Result<store::RevisionedJob> after = MarkDeleted(context, job, dry_run);
    if (!after.ok()) {
      return StoreError(after.status(), job.job.extras->kube->name);
    }
    // One that has left the API is listed as it was.
    items.push_back(
        json::parse(RenderTFJob(context, store::IsLiveKubeObject(after->job) ? *after : job)));
  }
  return Json(json{{"apiVersion", std::string(kGroup) + "/" + request.version},
                   {"kind", "TFJobList"},
                   {"metadata", {{"resourceVersion", std::to_string(CurrentRevision(context))}}},
                   {"items", std::move(items)}}
                  .dump());
}

}  // namespace trainyard::server::kube_internal
