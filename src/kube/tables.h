// Server-side printing: the meta.k8s.io/v1 Table that kubectl asks for
// (`Accept: application/json;as=Table;g=meta.k8s.io;v=v1`) when it prints `get` output, with the
// columns the TFJob CRD declares (Name, State, Age; docs/reference/kubeflow-tfjob.md §1) and those
// Kubernetes prints for pods and events (pkg/printers/internalversion/printers.go). Pure.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/time_format.h"
#include "kube/events.h"
#include "kube/tfjob.h"
#include "kube/tfjob_status.h"

namespace trainyard::kube {

struct TFJobRow {
  ObjectMeta metadata;   // name, namespace, uid, resourceVersion, creationTimestamp, labels
  std::string state;     // the last condition's type ("Running"); "" before the first
  std::string replicas;  // "1 Chief, 2 Worker, 1 PS" (ReplicasText)
  std::string job_id;    // the trainyard job it runs as
  Duration age{};        // now - creationTimestamp, as the caller's clock says
};

struct PodRow {
  Pod pod;
  Duration age{};
};

// {"kind":"Table","apiVersion":"meta.k8s.io/v1","metadata":{"resourceVersion":…},
//  "columnDefinitions":[…],"rows":[{"cells":[…],"object":{PartialObjectMetadata}}]}.
// TFJob columns: Name, State, Age; at priority 1 (-o wide): Replicas, Job.
// `include_object` false answers kubectl's includeObject=None (no "object" in the rows).
std::string TFJobTable(const std::vector<TFJobRow>& rows, std::int64_t resource_version,
                       bool include_object = true);
// Pod columns: Name, Ready ("1/1"), Status, Restarts, Age; at priority 1: Node.
std::string PodTable(const std::vector<PodRow>& rows, std::int64_t resource_version,
                     bool include_object = true);

struct EventRow {
  Event event;
  Duration age{};  // now - the event's time
};

// Event columns: Last Seen, Type, Reason, Object ("tfjob/mnist"), Message; at priority 1:
// Subobject, Source, First Seen, Count, Name.
std::string EventTable(const std::vector<EventRow>& rows, std::int64_t resource_version,
                       bool include_object = true);

// "1 Chief, 2 Worker" from the counts.
std::string ReplicasText(const std::vector<TypeCount>& counts);
// The Status column of `kubectl get pods`: a waiting or terminated container's reason
// (ContainerCreating, CrashLoopBackOff, Completed, Error), else the phase.
std::string PodStatusText(const Pod& pod);
// apimachinery's duration.HumanDuration: "45s", "3m2s", "15m", "5h3m", "2d4h", "400d", "3y10d";
// "<invalid>" for a negative age beyond clock skew.
std::string HumanDuration(Duration duration);

}  // namespace trainyard::kube
