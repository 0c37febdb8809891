#include "kube/tfjob_decode.h"

#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "base/text.h"
#include "kube/decode_internal.h"

namespace trainyard::kube {
namespace {

using internal::Decoder;
using internal::json;
using internal::Location;

// The flat run-policy fields of v1beta2 and of v1 before operator 1.2
// (docs/reference/kubeflow-tfjob.md §2.4).
constexpr std::string_view kFlatRunPolicy[] = {"cleanPodPolicy", "ttlSecondsAfterFinished",
                                               "activeDeadlineSeconds", "backoffLimit"};

// Best effort for the message of a body that is not JSON; the API server says the same.
std::string BodyExcerpt(std::string_view body) {
  return Excerpt(body, 80);
}

void DecodeMetadata(Decoder& d, const json& value, ObjectMeta& out) {
  const Location at{"metadata", "metadata"};
  if (!d.Object(value, at, "TFJob", "v1.ObjectMeta")) {
    return;
  }
  for (const auto& [key, item] : value.items()) {
    const Location here = at.Key(key);
    if (key == "name") {
      d.String(item, here, "ObjectMeta", out.name);
    } else if (key == "namespace") {
      d.String(item, here, "ObjectMeta", out.namespace_name);
    } else if (key == "labels") {
      d.Map(item, here, "ObjectMeta", out.labels);
    } else if (key == "annotations") {
      d.Map(item, here, "ObjectMeta", out.annotations);
    } else if (key == "uid") {
      d.String(item, here, "ObjectMeta", out.uid);
    } else if (key == "resourceVersion") {
      d.String(item, here, "ObjectMeta", out.resource_version);
    } else if (key == "generation") {
      std::optional<std::int64_t> generation;
      d.Int64(item, here, "ObjectMeta", generation);
      out.generation = generation.value_or(0);
    } else if (key == "creationTimestamp") {
      d.Time(item, here, "ObjectMeta", out.creation_timestamp);
    } else if (key == "deletionTimestamp") {
      d.Time(item, here, "ObjectMeta", out.deletion_timestamp);
    } else if (key == "generateName") {
      d.Unsupported(here, "give the TFJob a metadata.name; trainyard does not generate names");
    } else if (key == "finalizers" || key == "ownerReferences") {
      d.Unsupported(here, "trainyard deletes a TFJob when asked and has no owners or finalizers");
    } else if (key != "managedFields" && key != "selfLink" && key != "deletionGracePeriodSeconds") {
      // The three above are the server's bookkeeping, which a client may echo back.
      d.Unknown(at, key);
    }
  }
}

void DecodeSchedulingPolicy(Decoder& d, const json& value, const Location& at,
                            std::optional<SchedulingPolicy>& out) {
  if (!d.Object(value, at, "RunPolicy", "v1.SchedulingPolicy")) {
    return;
  }
  SchedulingPolicy policy;
  for (const auto& [key, item] : value.items()) {
    const Location here = at.Key(key);
    if (key == "minAvailable") {
      d.Int32(item, here, "SchedulingPolicy", policy.min_available);
    } else if (key == "queue") {
      d.String(item, here, "SchedulingPolicy", policy.queue);
    } else if (key == "priorityClass") {
      d.String(item, here, "SchedulingPolicy", policy.priority_class);
    } else if (key == "minResources") {
      d.Quantities(item, here, "SchedulingPolicy", policy.min_resources);
    } else if (key == "scheduleTimeoutSeconds") {
      d.Int32(item, here, "SchedulingPolicy", policy.schedule_timeout_seconds);
    } else {
      d.Unknown(at, key);
    }
  }
  out = std::move(policy);
}

// One run-policy field, nested (runPolicy.x, "RunPolicy") or flat (spec.x, "TFJobSpec").
// Returns false when `key` is not a run-policy field.
bool DecodeRunPolicyField(Decoder& d, std::string_view key, const json& item, const Location& at,
                          std::string_view go_struct, RunPolicy& out) {
  if (key == "cleanPodPolicy") {
    d.OptionalString(item, at, go_struct, out.clean_pod_policy);
  } else if (key == "ttlSecondsAfterFinished") {
    d.Int32(item, at, go_struct, out.ttl_seconds_after_finished);
  } else if (key == "activeDeadlineSeconds") {
    d.Int64(item, at, go_struct, out.active_deadline_seconds);
  } else if (key == "backoffLimit") {
    d.Int32(item, at, go_struct, out.backoff_limit);
  } else {
    return false;
  }
  return true;
}

void DecodeRunPolicy(Decoder& d, const json& value, const Location& at, RunPolicy& out) {
  if (!d.Object(value, at, "TFJobSpec", "v1.RunPolicy")) {
    return;
  }
  for (const auto& [key, item] : value.items()) {
    const Location here = at.Key(key);
    if (DecodeRunPolicyField(d, key, item, here, "RunPolicy", out)) {
      continue;
    }
    if (key == "suspend") {
      d.Bool(item, here, "RunPolicy", out.suspend);
    } else if (key == "schedulingPolicy") {
      DecodeSchedulingPolicy(d, item, here, out.scheduling_policy);
    } else if (key == "managedBy") {
      d.OptionalString(item, here, "RunPolicy", out.managed_by);
    } else {
      d.Unknown(at, key);
    }
  }
}

void DecodeReplicaSpec(Decoder& d, const json& value, const Location& at, ReplicaSpec& out) {
  if (!d.Object(value, at, "TFJobSpec", "v1.ReplicaSpec")) {
    return;
  }
  for (const auto& [key, item] : value.items()) {
    const Location here = at.Key(key);
    if (key == "replicas") {
      std::optional<std::int32_t> replicas;
      d.Int32(item, here, "ReplicaSpec", replicas);
      out.replicas = replicas.value_or(out.replicas);
    } else if (key == "restartPolicy") {
      d.String(item, here, "ReplicaSpec", out.restart_policy);
    } else if (key == "template") {
      internal::DecodeTemplate(d, item, here, out.template_);
    } else {
      // The seed's replica-level nodeSelector and imagePullPolicy
      // (docs/reference/kubeflow-tfjob.md §9).
      d.Unknown(at, key);
    }
  }
}

// Specs in canonical order; keys that are none of the five types keep their spelling and go
// last, for validation to refuse.
void DecodeReplicaSpecs(Decoder& d, const json& value, const Location& at,
                        std::vector<ReplicaSpec>& out) {
  if (!d.Object(value, at, "TFJobSpec", "map[v1.ReplicaType]*v1.ReplicaSpec")) {
    return;
  }
  for (const auto& [key, item] : value.items()) {
    ReplicaSpec spec;
    spec.type = CanonicalType(key).value_or(key);
    DecodeReplicaSpec(d, item, at.MapKey(spec.type), spec);
    out.push_back(std::move(spec));
  }
  const auto rank = [](const ReplicaSpec& spec) {
    const auto* it = std::ranges::find(kReplicaTypes, spec.type);
    return static_cast<std::size_t>(it - std::begin(kReplicaTypes));
  };
  std::ranges::stable_sort(out, {}, rank);
}

void DecodeSpec(Decoder& d, const json& value, TFJob& out) {
  const Location at{"spec", "spec"};
  if (!d.Object(value, at, "TFJob", "v1.TFJobSpec")) {
    return;
  }
  const bool v1 = d.version() == "v1";
  const bool nested = v1 && value.contains("runPolicy") && !value["runPolicy"].is_null();
  for (const auto& [key, item] : value.items()) {
    const Location here = at.Key(key);
    if (std::ranges::find(kFlatRunPolicy, key) != std::end(kFlatRunPolicy)) {
      if (nested) {
        // Operator 1.2+ reads only runPolicy; say so rather than apply it half (#1241).
        d.Warn(
            fmt::format("spec.{} is ignored because spec.runPolicy is given; move it to "
                        "spec.runPolicy.{}",
                        key, key));
      } else {
        DecodeRunPolicyField(d, key, item, here, "TFJobSpec", out.run_policy);
      }
    } else if (key == "tfReplicaSpecs") {
      DecodeReplicaSpecs(d, item, here, out.replica_specs);
    } else if (v1 && key == "runPolicy") {
      DecodeRunPolicy(d, item, here, out.run_policy);
    } else if (v1 && key == "successPolicy") {
      d.String(item, here, "TFJobSpec", out.success_policy);
    } else if (v1 && key == "enableDynamicWorker") {
      d.Bool(item, here, "TFJobSpec", out.enable_dynamic_worker);
    } else {
      d.Unknown(at, key);  // v1beta2 had no runPolicy, successPolicy or enableDynamicWorker
    }
  }
}

}  // namespace

KubeResult<DecodedTFJob> DecodeTFJob(std::string_view body) {
  json document = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded() || !document.is_object()) {
    return BadRequest(
        fmt::format("couldn't get version/kind; json parse error: the body is not "
                    "a JSON object: {}",
                    BodyExcerpt(body)));
  }
  const json& kind = document.contains("kind") ? document["kind"] : json();
  const json& api_version = document.contains("apiVersion") ? document["apiVersion"] : json();
  if (!kind.is_string() || kind.get<std::string>().empty()) {
    return BadRequest(fmt::format("Object 'Kind' is missing in '{}'", BodyExcerpt(body)));
  }
  if (!api_version.is_string() ||
      (api_version != kApiVersionV1 && api_version != kApiVersionV1Beta2)) {
    return BadRequest(fmt::format(
        "the API version in the data ({}) does not match the expected API version ({} or {})",
        api_version.is_string() ? api_version.get<std::string>() : std::string(), kApiVersionV1,
        kApiVersionV1Beta2));
  }
  const std::string version = api_version.get<std::string>().substr(kGroup.size() + 1);
  if (kind != kTFJobKind) {
    return BadRequest(
        fmt::format("the kind in the data ({}) does not match the expected kind ({}) of {}",
                    kind.get<std::string>(), kTFJobKind, api_version.get<std::string>()));
  }

  Decoder d(version);
  DecodedTFJob out;
  out.job.api_version = api_version.get<std::string>();
  for (const auto& [key, item] : document.items()) {
    if (key == "metadata") {
      DecodeMetadata(d, item, out.job.metadata);
    } else if (key == "spec") {
      DecodeSpec(d, item, out.job);
    } else if (key != "apiVersion" && key != "kind" && key != "status") {
      // `status` belongs to the status subresource: the API server drops it on create/update.
      d.Unknown(Location{}, key);
    }
  }
  if (d.failed()) {
    return d.error();
  }
  out.job.unsupported = std::move(d.unsupported());
  out.unknown_fields = std::move(d.unknown());
  out.warnings = std::move(d.warnings());
  return out;
}

}  // namespace trainyard::kube
