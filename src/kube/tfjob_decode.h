// The TFJob JSON codec: what kubectl sends (create, update, and the document a patch yields) to
// a `TFJob`, and a `TFJob` back to the JSON a GET answers. Pure.
//
// Decoding is the API server's part, not the webhook's: it refuses what the Go types cannot hold
// (a string where an int32 goes: 400 BadRequest worded as apimachinery words it), accepts
// `kubeflow.org/v1` and `kubeflow.org/v1beta2`, canonicalises replica-type keys as the operator's
// defaulter does ("ps" -> "PS"), and reads the flat run-policy fields of v1beta2 and of v1 before
// operator 1.2 (docs/reference/kubeflow-tfjob.md §2.4). Unknown fields are not an error here: they
// are listed so that the server applies `fieldValidation` (Strict: 400, Warn: warnings, Ignore).
// Fields the schema knows but trainyard cannot honour (volumes, affinity, probes, …) are kept in
// `TFJob::unsupported`, which validation refuses by name: nothing a user wrote is dropped silently.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/kube_status.h"
#include "kube/tfjob.h"

namespace trainyard::kube {

struct DecodedTFJob {
  TFJob job;
  // Unknown fields as apimachinery's strict decoding names them, keys in sorted order:
  // "spec.tfReplicaSpecs.PS.nodeSelector",
  // "spec.tfReplicaSpecs.Worker.template.spec.containers[0].foo".
  std::vector<std::string> unknown_fields;
  // What was read but not used, for Warning headers: a flat run-policy field next to runPolicy.
  std::vector<std::string> warnings;
};

// The TFJob in `body` (JSON). Errors: 400 BadRequest for text that is not a JSON object, a
// missing or wrong kind, an apiVersion other than the two, and type errors.
KubeResult<DecodedTFJob> DecodeTFJob(std::string_view body);

// The TFJob as the API answers a GET: apiVersion, kind, metadata (empty fields left out), the
// spec with the operator's defaults filled in (replicas 1, restartPolicy Never, the tensorflow
// container's port tfjob-port 2222, successPolicy "", runPolicy.cleanPodPolicy "None" and suspend
// false; v1beta2 keeps its flat layout and its default cleanPodPolicy "Running"), and `status`
// when given. Decoding the result gives `job` back with those defaults set.
std::string EncodeTFJob(const TFJob& job, const TFJobStatus* status);

}  // namespace trainyard::kube
