// The ml v1 `Job` resource (AI Platform Training), as plain values.
//
// Field names follow docs/reference/ai-platform-training.md §2 (C++ snake_case of the JSON
// camelCase names). Scalars follow proto3: a zero value means "not set", except where the API gives
// a field presence that callers observe (optional<>): sub-messages, `minValue`/`maxValue` (0 is a
// valid bound), timestamps, durations, and `enableWebAccess` (gcloud always sends it explicitly).
// Accelerator types are strings, checked against the catalog, so new hardware is data, not code.
// Value types: copyable, comparable, no IO.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "base/time_format.h"
#include "model/job_extras.h"

namespace trainyard::model {

using Labels = std::map<std::string, std::string>;

// Job.State; numbers as in the API.
enum class JobState : std::uint8_t {
  kUnspecified = 0,
  kQueued = 1,
  kPreparing = 2,
  kRunning = 3,
  kSucceeded = 4,
  kFailed = 5,
  kCancelling = 6,
  kCancelled = 7,
};

// TrainingInput.ScaleTier; BASIC is the proto3 zero value.
enum class ScaleTier : std::uint8_t {
  kBasic = 0,
  kStandard1 = 1,
  kPremium1 = 2,
  kBasicGpu = 3,
  kBasicTpu = 4,
  kCustom = 5,
};

enum class GoalType : std::uint8_t { kUnspecified = 0, kMaximize = 1, kMinimize = 2 };

enum class Algorithm : std::uint8_t {
  kUnspecified = 0,  // Bayesian optimisation
  kGridSearch = 1,
  kRandomSearch = 2,
  kPopulationBasedTraining = 3,  // in the schema only; refused by validation
};

enum class ParameterType : std::uint8_t {
  kUnspecified = 0,
  kDouble = 1,
  kInteger = 2,
  kCategorical = 3,
  kDiscrete = 4,
};

enum class ScaleType : std::uint8_t {
  kNone = 0,
  kUnitLinearScale = 1,
  kUnitLogScale = 2,
  kUnitReverseLogScale = 3,
};

enum class SchedulingStrategy : std::uint8_t { kUnspecified = 0, kOnDemand = 1, kLowCost = 2 };

struct AcceleratorConfig {
  std::int64_t count = 0;
  std::string type;  // enum name, e.g. "NVIDIA_TESLA_T4"; "" or "ACCELERATOR_TYPE_UNSPECIFIED"

  friend bool operator==(const AcceleratorConfig&, const AcceleratorConfig&) = default;
};

struct DiskConfig {
  std::string boot_disk_type;  // "pd-ssd" | "pd-standard"
  std::int32_t boot_disk_size_gb = 0;

  friend bool operator==(const DiskConfig&, const DiskConfig&) = default;
};

struct ReplicaConfig {
  std::optional<AcceleratorConfig> accelerator_config;
  std::string image_uri;
  std::string tpu_tf_version;
  std::vector<std::string> container_command;
  std::vector<std::string> container_args;
  std::optional<DiskConfig> disk_config;

  friend bool operator==(const ReplicaConfig&, const ReplicaConfig&) = default;
};

struct EncryptionConfig {
  std::string kms_key_name;

  friend bool operator==(const EncryptionConfig&, const EncryptionConfig&) = default;
};

struct Scheduling {
  std::optional<Duration> max_running_time;
  std::optional<Duration> max_wait_time;
  std::int32_t priority = 0;
  bool resilient_to_worker_restart = false;
  SchedulingStrategy strategy = SchedulingStrategy::kUnspecified;

  friend bool operator==(const Scheduling&, const Scheduling&) = default;
};

struct ParameterSpec {
  std::string parameter_name;
  ParameterType type = ParameterType::kUnspecified;
  std::optional<double> min_value;
  std::optional<double> max_value;
  std::vector<std::string> categorical_values;
  std::vector<double> discrete_values;
  ScaleType scale_type = ScaleType::kNone;

  friend bool operator==(const ParameterSpec&, const ParameterSpec&) = default;
};

struct HyperparameterSpec {
  GoalType goal = GoalType::kUnspecified;
  std::vector<ParameterSpec> params;
  std::int32_t max_trials = 0;
  std::int32_t max_parallel_trials = 0;
  std::int32_t max_failed_trials = 0;
  std::string hyperparameter_metric_tag;
  bool enable_trial_early_stopping = false;
  Algorithm algorithm = Algorithm::kUnspecified;
  std::string resume_previous_job_id;

  friend bool operator==(const HyperparameterSpec&, const HyperparameterSpec&) = default;
};

struct TrainingInput {
  ScaleTier scale_tier = ScaleTier::kBasic;
  std::string master_type;
  std::optional<ReplicaConfig> master_config;
  std::string worker_type;
  std::optional<ReplicaConfig> worker_config;
  std::int64_t worker_count = 0;
  std::string parameter_server_type;
  std::optional<ReplicaConfig> parameter_server_config;
  std::int64_t parameter_server_count = 0;
  std::string evaluator_type;
  std::optional<ReplicaConfig> evaluator_config;
  std::int64_t evaluator_count = 0;
  bool use_chief_in_tf_config = false;
  std::vector<std::string> package_uris;
  std::string python_module;
  std::vector<std::string> args;
  std::optional<HyperparameterSpec> hyperparameters;
  std::string region;
  std::string job_dir;
  std::string runtime_version;
  std::string python_version;
  std::optional<Scheduling> scheduling;
  std::string network;
  std::string service_account;
  std::optional<EncryptionConfig> encryption_config;
  std::optional<bool> enable_web_access;

  friend bool operator==(const TrainingInput&, const TrainingInput&) = default;
};

struct HyperparameterMetric {
  std::int64_t training_step = 0;
  double objective_value = 0;

  friend bool operator==(const HyperparameterMetric&, const HyperparameterMetric&) = default;
};

struct BuiltInAlgorithmOutput {
  std::string framework;
  std::string runtime_version;
  std::string python_version;
  std::string model_path;

  friend bool operator==(const BuiltInAlgorithmOutput&, const BuiltInAlgorithmOutput&) = default;
};

struct HyperparameterOutput {
  std::string trial_id;
  std::map<std::string, std::string> hyperparameters;
  std::optional<HyperparameterMetric> final_metric;
  std::vector<HyperparameterMetric> all_metrics;
  std::optional<WallTime> start_time;
  std::optional<WallTime> end_time;
  JobState state = JobState::kUnspecified;
  bool is_trial_stopped_early = false;
  std::optional<BuiltInAlgorithmOutput> built_in_algorithm_output;
  std::map<std::string, std::string> web_access_uris;

  friend bool operator==(const HyperparameterOutput&, const HyperparameterOutput&) = default;
};

struct TrainingOutput {
  std::int64_t completed_trial_count = 0;
  double consumed_ml_units = 0;
  std::vector<HyperparameterOutput> trials;
  bool is_hyperparameter_tuning_job = false;
  std::string hyperparameter_metric_tag;
  bool is_built_in_algorithm_job = false;
  std::optional<BuiltInAlgorithmOutput> built_in_algorithm_output;
  std::map<std::string, std::string> web_access_uris;

  friend bool operator==(const TrainingOutput&, const TrainingOutput&) = default;
};

struct Job {
  std::string job_id;
  std::optional<WallTime> create_time;
  std::optional<WallTime> start_time;
  std::optional<WallTime> end_time;
  JobState state = JobState::kUnspecified;
  std::string error_message;
  Labels labels;
  std::string etag;  // base64 text as on the wire (bytes field)
  std::optional<TrainingInput> training_input;
  std::optional<TrainingOutput> training_output;
  std::int64_t job_position = 0;
  // Not on the ml v1 wire: what a job from another API asks of the engine (job_extras.h).
  std::optional<JobExtras> extras;

  friend bool operator==(const Job&, const Job&) = default;
};

// Enum names as the API spells them ("QUEUED", "STANDARD_1", "UNIT_LOG_SCALE", …).
std::string_view JobStateName(JobState state);
std::string_view ScaleTierName(ScaleTier tier);
std::string_view GoalTypeName(GoalType goal);
std::string_view AlgorithmName(Algorithm algorithm);
std::string_view ParameterTypeName(ParameterType type);
std::string_view ScaleTypeName(ScaleType type);
std::string_view SchedulingStrategyName(SchedulingStrategy strategy);

// Terminal states: SUCCEEDED, FAILED, CANCELLED.
bool IsTerminal(JobState state);

// Whether the job is suspended (job_extras.h: a TFJob's runPolicy.suspend, trainyard v1's
// jobs:suspend), whatever its state.
bool IsSuspended(const Job& job);

}  // namespace trainyard::model
