// What a job submitted through an API other than ml v1 (a Kubeflow TFJob through the Kubernetes
// API, a Vertex AI CustomJob or HyperparameterTuningJob) asks of the engine beyond
// `TrainingInput`: per-role environment, arguments, working directory, restart rules and node
// selectors, the Kubeflow cluster naming, the success rule, a restart budget, suspension, and the
// Kubernetes object or Vertex resource the job is. Stored with the job
// (`EncodeJobExtras`, `EncodeStoredJob`), never shown on the ml v1 wire. Value types, no IO.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/clock.h"

namespace trainyard::model {

// What a replica's end means for it. kAiPlatform is ml v1's rule (a signal restarts it, a
// non-zero exit fails the job); the others are Kubernetes' pod restart policies as the Kubeflow
// operator applies them (docs/reference/kubeflow-tfjob.md §2.2).
enum class RestartRule : std::uint8_t {
  kAiPlatform = 0,
  kNever = 1,      // no restart: a failure fails the job
  kOnFailure = 2,  // restart on a non-zero exit or a signal
  kAlways = 3,     // restart whenever it ends, also after exit 0 (not the primary's success)
  kExitCode = 4,   // exit 1–127 fails the job; 128–255 (signals included) restarts it
};

// Who decides that the job SUCCEEDED.
enum class SuccessRule : std::uint8_t {
  kPrimary = 0,     // the master (a TFJob's Chief/Master, else its worker 0) exiting 0
  kAllWorkers = 1,  // the primary and every worker exiting 0 (TFJob successPolicy AllWorkers)
};

struct RoleExtras {
  // Set after trainyard's own variables, in order; a name given twice: the last wins.
  std::vector<std::pair<std::string, std::string>> env;
  // A runtime (Python package) job's arguments for this role instead of the job's `args` (a
  // Vertex worker pool's pythonPackageSpec.args); nullopt: the job's.
  std::optional<std::vector<std::string>> args;
  std::string working_dir;  // "" = the image's (containers) or trainyard's (processes)
  RestartRule restart = RestartRule::kAiPlatform;
  std::map<std::string, std::string> node_selector;  // every pair must be a label of the node

  friend bool operator==(const RoleExtras&, const RoleExtras&) = default;
};

// Kubeflow's TF_CONFIG (docs/reference/kubeflow-tfjob.md §4.2) instead of AI Platform's: replicas
// are named `<job>-<type>-<index>.<namespace>.svc` (resolvable inside the replicas), every role
// including evaluators is in `cluster`, `environment` is "cloud", and a job of one replica gets
// none.
struct KubeflowNaming {
  std::string job_name;        // the TFJob's metadata.name
  std::string namespace_name;  // its namespace
  // The lower-case type of the primary: "chief", "master", or "worker" when worker 0 is the
  // primary (then the engine's worker i is Kubeflow's worker i + 1).
  std::string primary_type = "chief";

  friend bool operator==(const KubeflowNaming&, const KubeflowNaming&) = default;
};

// The Kubernetes object a job is, for the Kubernetes API (api/kube/*).
struct KubeObject {
  std::string kind;         // "TFJob"
  std::string api_version;  // as last written: "kubeflow.org/v1" or "kubeflow.org/v1beta2"
  std::string name;
  std::string namespace_name;
  std::string uid;
  // The object's metadata (labels, annotations) and spec as last written, a JSON object.
  std::string document;
  std::int64_t generation = 1;  // bumped by every change of the spec
  // Set by a delete: the object leaves the API once its job has ended.
  std::optional<WallTime> deletion_time;

  friend bool operator==(const KubeObject&, const KubeObject&) = default;
};

// The Vertex AI resource a job is (api/vertex/*, vertex/). Its replicas are named by worker
// pool ("workerpool0-0", "workerpool1-2"), CLUSTER_SPEC is keyed by pool, TF_CONFIG always names
// the primary "chief", and AIP_MODEL_DIR & co. derive from `base_output_directory`.
struct VertexResource {
  std::string kind;      // "CustomJob" or "HyperparameterTuningJob"
  std::string location;  // the region of its name, projects/P/locations/<location>/…
  std::string display_name;
  // The resource's spec as accepted, a JSON object: a CustomJob's jobSpec, or a
  // HyperparameterTuningJob's studySpec, trialJobSpec and trial counts. Echoed on the wire.
  std::string document;
  // jobSpec.baseOutputDirectory.outputUriPrefix ("" when none).
  std::string base_output_directory;

  friend bool operator==(const VertexResource&, const VertexResource&) = default;
};

// A tuning parameter that is active only when its parent's value is one of the given ones
// (Vertex AI's conditionalParameterSpecs). The study's `params` list every parameter, a child
// after its parent; a trial gets only its active ones (tuning/conditional_space.h).
struct ParameterCondition {
  std::string parameter;                       // the child's parameterName
  std::string parent;                          // the parent's: DISCRETE, INTEGER or CATEGORICAL
  std::vector<double> parent_values;           // a DISCRETE or INTEGER parent's values
  std::vector<std::string> parent_categories;  // a CATEGORICAL parent's categories
  friend bool operator==(const ParameterCondition&, const ParameterCondition&) = default;
};
enum class GoalType : std::uint8_t;  // model/job.h

// A metric of a multi-objective study beyond its first (Vertex AI's studySpec.metrics[1..]): the
// first is the study's hyperparameterMetricTag and goal, as ml v1 has exactly one.
struct StudyMetric {
  std::string id;  // the hypertune tag the trials report it under
  GoalType goal{};
  friend bool operator==(const StudyMetric&, const StudyMetric&) = default;
};

// A trial's final values of the study's extra metrics, parallel to `extra_metrics`; written with
// the trial's finalMetric (the first metric), and only when every metric was reported.
struct TrialMeasurement {
  std::string trial_id;
  std::vector<double> values;
  friend bool operator==(const TrialMeasurement&, const TrialMeasurement&) = default;
};

struct JobExtras {
  RoleExtras master;
  RoleExtras worker;
  RoleExtras parameter_server;
  RoleExtras evaluator;
  std::optional<KubeflowNaming> kubeflow;
  SuccessRule success = SuccessRule::kPrimary;
  // Restarts allowed across all replicas before the job FAILS; nullopt: the server's per-replica
  // limit (`--max-restarts`).
  std::optional<std::int32_t> backoff_limit;
  bool restart_all_on_failure = false;  // a restart restarts every replica together
  bool suspended = false;               // not placed until resumed; a running job is stopped
  bool resumed = false;  // suspended once, then resumed (a TFJob's Suspended=False, TFJobResumed)
  // A TFJob's schedulingPolicy.priorityClass: its placement priority is the class's number in the
  // admin's table (sched::SharingPolicy::priority_classes; control/reconcile/priority.h).
  std::string priority_class;
  // A tuning trial's final metric is its best report, not its last (Vertex AI's
  // measurementSelectionType BEST_MEASUREMENT).
  bool best_measurement = false;
  // The study's conditional parameters, at most one condition per parameter.
  std::vector<ParameterCondition> parameter_conditions;
  // A multi-objective study's metrics after its first, and its trials' values of them.
  std::vector<StudyMetric> extra_metrics;
  std::vector<TrialMeasurement> trial_measurements;
  std::optional<KubeObject> kube;
  std::optional<VertexResource> vertex;

  friend bool operator==(const JobExtras&, const JobExtras&) = default;
};

std::string_view RestartRuleName(RestartRule rule);  // "Never", "OnFailure", … ("" = AiPlatform)
std::string_view SuccessRuleName(SuccessRule rule);  // "", "AllWorkers"

}  // namespace trainyard::model
