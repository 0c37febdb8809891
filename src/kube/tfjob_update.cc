#include "kube/tfjob_update.h"

#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "kube/tfjob_decode.h"
#include "kube/tfjob_validate.h"

namespace trainyard::kube {
namespace {

using nlohmann::json;

// The spec without what may change once the job has started.
TFJob FixedPart(TFJob job) {
  job.metadata = {};
  job.api_version.clear();
  job.run_policy.suspend = false;
  job.run_policy.active_deadline_seconds.reset();
  job.run_policy.backoff_limit.reset();
  job.run_policy.ttl_seconds_after_finished.reset();
  job.unsupported.clear();
  return job;
}

TFJob SpecOnly(TFJob job) {
  job.metadata = {};
  job.api_version.clear();
  return job;
}

// The metadata a client gives, without what the server sets (the API server's update keeps the
// stored object's: docs/reference/kubeflow-tfjob.md §13), so that sending back what a GET showed
// changes nothing.
ObjectMeta WithoutServerFields(ObjectMeta meta) {
  meta.uid.clear();
  meta.resource_version.clear();
  meta.generation = 0;
  meta.creation_timestamp.reset();
  meta.deletion_timestamp.reset();
  return meta;
}

std::string PriorityClass(const TFJob& job) {
  return job.run_policy.scheduling_policy ? job.run_policy.scheduling_policy->priority_class : "";
}

}  // namespace

KubeResult<TFJobUpdate> ApplyUpdate(const TFJob& old, TFJob next, bool started) {
  // With the operator's defaults filled in, as the stored one has them, so that leaving a
  // defaulted field out of the manifest is no change.
  if (KubeResult<DecodedTFJob> defaulted = DecodeTFJob(EncodeTFJob(next, nullptr));
      defaulted.ok()) {
    defaulted->job.metadata = next.metadata;
    next = std::move(defaulted->job);
  }
  next.metadata = WithoutServerFields(std::move(next.metadata));
  std::vector<StatusCause> causes = ValidateTFJob(next, &old);
  if (started && FixedPart(next) != FixedPart(old)) {
    causes.push_back(
        ForbiddenCause("spec",
                       "the TFJob has started: only runPolicy.suspend, activeDeadlineSeconds, "
                       "backoffLimit and ttlSecondsAfterFinished may change; delete it and apply "
                       "it again to change the rest"));
  }
  if (!causes.empty()) {
    return Invalid(kTFJobKind, kGroup, next.metadata.name, std::move(causes));
  }
  TFJobUpdate update{.spec_changed = SpecOnly(next) != SpecOnly(old),
                     .priority_class_changed = PriorityClass(next) != PriorityClass(old)};
  update.job = std::move(next);
  return update;
}

bool HasStarted(const model::Job& job) {
  return job.state != model::JobState::kQueued || job.start_time.has_value();
}

Status CheckResourceVersion(std::string_view given, std::int64_t stored) {
  if (given.empty() || given == std::to_string(stored)) {
    return Status();
  }
  return Status::Aborted(fmt::format("resourceVersion {} is not the stored {}", given, stored));
}

std::optional<model::Job> MergeReplacement(const model::Job& current, const model::Job& mapped,
                                           bool started, bool spec_changed) {
  if (!current.extras.has_value() || !current.extras->kube.has_value() ||
      !mapped.extras.has_value() || !mapped.extras->kube.has_value() ||
      current.extras->kube->uid != mapped.extras->kube->uid) {
    return std::nullopt;
  }
  model::Job next = current;
  if (started) {
    model::JobExtras extras = *mapped.extras;
    extras.master = current.extras->master;
    extras.worker = current.extras->worker;
    extras.parameter_server = current.extras->parameter_server;
    extras.evaluator = current.extras->evaluator;
    next.extras = std::move(extras);
    if (mapped.training_input.has_value() && next.training_input.has_value()) {
      next.training_input->scheduling = mapped.training_input->scheduling;
    }
  } else {
    next.training_input = mapped.training_input;
    next.extras = mapped.extras;
  }
  next.labels = mapped.labels;
  next.extras->resumed =
      current.extras->resumed || (current.extras->suspended && !next.extras->suspended);
  next.extras->kube->generation = current.extras->kube->generation + (spec_changed ? 1 : 0);
  next.extras->kube->deletion_time = current.extras->kube->deletion_time;
  return next;
}

std::optional<model::Job> MarkDeleted(const model::Job& job, WallTime now) {
  if (!job.extras.has_value() || !job.extras->kube.has_value() ||
      job.extras->kube->deletion_time.has_value()) {
    return std::nullopt;
  }
  model::Job next = job;
  next.extras->kube->deletion_time = now;
  return next;
}

}  // namespace trainyard::kube

namespace trainyard::kube {

KubeResult<std::string> ServerSideApplyBase(std::string_view stored, std::string_view manifest) {
  json patch = json::parse(manifest, nullptr, false);
  if (!patch.is_object()) {
    return BadRequest(
        "the apply patch is not a JSON object: trainyard reads apply patches written as JSON "
        "(as kubectl sends them)");
  }
  patch.erase("status");  // trainyard's to write
  json object = json::parse(stored, nullptr, false);
  if (!object.is_object()) {
    return InternalError("the stored TFJob cannot be read");
  }
  object.erase("status");
  if (const auto metadata = object.find("metadata");
      metadata != object.end() && metadata->is_object()) {
    for (const char* set_by_server : {"resourceVersion", "uid", "generation", "creationTimestamp",
                                      "deletionTimestamp", "managedFields"}) {
      metadata->erase(set_by_server);
    }
  }
  object.merge_patch(patch);
  return object.dump();
}

}  // namespace trainyard::kube
