// The ml v1 message schema as data, internal to model/: each message lists its fields once, in
// wire order (docs/reference/ai-platform-training.md §2), with their JSON names. The JSON decoder,
// the JSON encoder and the schema-guided YAML reader all walk these lists, so a field's name, order
// and type live in one place. The JSON form of a field follows from its C++ type (int64 → string,
// int32 → number, …).
//
// A visitor `v` passed to `VisitFields` provides:
//   v.Field(name, member)      a field whose wire form follows from the member's type
//   v.Bytes(name, member)      a `bytes` field held as its base64 text
//   v.Unsupported(name, why)   a field of the API that trainyard refuses when present
#pragma once

#include <array>
#include <concepts>
#include <string_view>
#include <type_traits>

#include "model/job.h"

namespace trainyard::model::fields {

// "M is the message type U, possibly const": lets one field list serve readers and writers.
template <typename M, typename U>
concept MessageOf = std::same_as<std::remove_const_t<M>, U>;

// The proto full name of each message (empty for non-messages), used in error messages.
template <typename T>
inline constexpr std::string_view kMessageName{};
template <>
inline constexpr std::string_view kMessageName<AcceleratorConfig> =
    "google.cloud.ml.v1.AcceleratorConfig";
template <>
inline constexpr std::string_view kMessageName<DiskConfig> = "google.cloud.ml.v1.DiskConfig";
template <>
inline constexpr std::string_view kMessageName<ReplicaConfig> = "google.cloud.ml.v1.ReplicaConfig";
template <>
inline constexpr std::string_view kMessageName<EncryptionConfig> =
    "google.cloud.ml.v1.EncryptionConfig";
template <>
inline constexpr std::string_view kMessageName<Scheduling> = "google.cloud.ml.v1.Scheduling";
template <>
inline constexpr std::string_view kMessageName<ParameterSpec> = "google.cloud.ml.v1.ParameterSpec";
template <>
inline constexpr std::string_view kMessageName<HyperparameterSpec> =
    "google.cloud.ml.v1.HyperparameterSpec";
template <>
inline constexpr std::string_view kMessageName<TrainingInput> = "google.cloud.ml.v1.TrainingInput";
template <>
inline constexpr std::string_view kMessageName<HyperparameterMetric> =
    "google.cloud.ml.v1.HyperparameterMetric";
template <>
inline constexpr std::string_view kMessageName<BuiltInAlgorithmOutput> =
    "google.cloud.ml.v1.BuiltInAlgorithmOutput";
template <>
inline constexpr std::string_view kMessageName<HyperparameterOutput> =
    "google.cloud.ml.v1.HyperparameterOutput";
template <>
inline constexpr std::string_view kMessageName<TrainingOutput> =
    "google.cloud.ml.v1.TrainingOutput";
template <>
inline constexpr std::string_view kMessageName<Job> = "google.cloud.ml.v1.Job";

template <typename T>
concept Message = !kMessageName<T>.empty();

// Every value of each enum, its proto name, and its spelling (from job.h).
template <typename E>
struct EnumInfo;

template <>
struct EnumInfo<JobState> {
  static constexpr std::string_view kName = "google.cloud.ml.v1.Job.State";
  static constexpr std::array kValues = {
      JobState::kUnspecified, JobState::kQueued, JobState::kPreparing,  JobState::kRunning,
      JobState::kSucceeded,   JobState::kFailed, JobState::kCancelling, JobState::kCancelled};
  static std::string_view Name(JobState value) { return JobStateName(value); }
};
template <>
struct EnumInfo<ScaleTier> {
  static constexpr std::string_view kName = "google.cloud.ml.v1.TrainingInput.ScaleTier";
  static constexpr std::array kValues = {ScaleTier::kBasic,    ScaleTier::kStandard1,
                                         ScaleTier::kPremium1, ScaleTier::kBasicGpu,
                                         ScaleTier::kBasicTpu, ScaleTier::kCustom};
  static std::string_view Name(ScaleTier value) { return ScaleTierName(value); }
};
template <>
struct EnumInfo<GoalType> {
  static constexpr std::string_view kName = "google.cloud.ml.v1.HyperparameterSpec.GoalType";
  static constexpr std::array kValues = {GoalType::kUnspecified, GoalType::kMaximize,
                                         GoalType::kMinimize};
  static std::string_view Name(GoalType value) { return GoalTypeName(value); }
};
template <>
struct EnumInfo<Algorithm> {
  static constexpr std::string_view kName = "google.cloud.ml.v1.HyperparameterSpec.Algorithm";
  static constexpr std::array kValues = {Algorithm::kUnspecified, Algorithm::kGridSearch,
                                         Algorithm::kRandomSearch,
                                         Algorithm::kPopulationBasedTraining};
  static std::string_view Name(Algorithm value) { return AlgorithmName(value); }
};
template <>
struct EnumInfo<ParameterType> {
  static constexpr std::string_view kName = "google.cloud.ml.v1.ParameterSpec.ParameterType";
  static constexpr std::array kValues = {ParameterType::kUnspecified, ParameterType::kDouble,
                                         ParameterType::kInteger, ParameterType::kCategorical,
                                         ParameterType::kDiscrete};
  static std::string_view Name(ParameterType value) { return ParameterTypeName(value); }
};
template <>
struct EnumInfo<ScaleType> {
  static constexpr std::string_view kName = "google.cloud.ml.v1.ParameterSpec.ScaleType";
  static constexpr std::array kValues = {ScaleType::kNone, ScaleType::kUnitLinearScale,
                                         ScaleType::kUnitLogScale, ScaleType::kUnitReverseLogScale};
  static std::string_view Name(ScaleType value) { return ScaleTypeName(value); }
};
template <>
struct EnumInfo<SchedulingStrategy> {
  static constexpr std::string_view kName = "google.cloud.ml.v1.Scheduling.SchedulingStrategy";
  static constexpr std::array kValues = {SchedulingStrategy::kUnspecified,
                                         SchedulingStrategy::kOnDemand,
                                         SchedulingStrategy::kLowCost};
  static std::string_view Name(SchedulingStrategy value) { return SchedulingStrategyName(value); }
};

// §2.3
void VisitFields(auto& v, MessageOf<AcceleratorConfig> auto& m) {
  v.Field("count", m.count);
  v.Field("type", m.type);
}

void VisitFields(auto& v, MessageOf<DiskConfig> auto& m) {
  v.Field("bootDiskType", m.boot_disk_type);
  v.Field("bootDiskSizeGb", m.boot_disk_size_gb);
}

void VisitFields(auto& v, MessageOf<ReplicaConfig> auto& m) {
  v.Field("acceleratorConfig", m.accelerator_config);
  v.Field("imageUri", m.image_uri);
  v.Field("tpuTfVersion", m.tpu_tf_version);
  v.Field("containerCommand", m.container_command);
  v.Field("containerArgs", m.container_args);
  v.Field("diskConfig", m.disk_config);
}

void VisitFields(auto& v, MessageOf<EncryptionConfig> auto& m) {
  v.Field("kmsKeyName", m.kms_key_name);
}

void VisitFields(auto& v, MessageOf<Scheduling> auto& m) {
  v.Field("maxRunningTime", m.max_running_time);
  v.Field("maxWaitTime", m.max_wait_time);
  v.Field("priority", m.priority);
  v.Field("resilientToWorkerRestart", m.resilient_to_worker_restart);
  v.Field("strategy", m.strategy);
}

// §2.4
void VisitFields(auto& v, MessageOf<ParameterSpec> auto& m) {
  v.Field("parameterName", m.parameter_name);
  v.Field("type", m.type);
  v.Field("minValue", m.min_value);
  v.Field("maxValue", m.max_value);
  v.Field("categoricalValues", m.categorical_values);
  v.Field("discreteValues", m.discrete_values);
  v.Field("scaleType", m.scale_type);
}

void VisitFields(auto& v, MessageOf<HyperparameterSpec> auto& m) {
  v.Field("goal", m.goal);
  v.Field("params", m.params);
  v.Field("maxTrials", m.max_trials);
  v.Field("maxParallelTrials", m.max_parallel_trials);
  v.Field("maxFailedTrials", m.max_failed_trials);
  v.Field("hyperparameterMetricTag", m.hyperparameter_metric_tag);
  v.Field("enableTrialEarlyStopping", m.enable_trial_early_stopping);
  v.Field("algorithm", m.algorithm);
  v.Field("resumePreviousJobId", m.resume_previous_job_id);
}

// §2.2
void VisitFields(auto& v, MessageOf<TrainingInput> auto& m) {
  v.Field("scaleTier", m.scale_tier);
  v.Field("masterType", m.master_type);
  v.Field("masterConfig", m.master_config);
  v.Field("workerType", m.worker_type);
  v.Field("workerConfig", m.worker_config);
  v.Field("workerCount", m.worker_count);
  v.Field("parameterServerType", m.parameter_server_type);
  v.Field("parameterServerConfig", m.parameter_server_config);
  v.Field("parameterServerCount", m.parameter_server_count);
  v.Field("evaluatorType", m.evaluator_type);
  v.Field("evaluatorConfig", m.evaluator_config);
  v.Field("evaluatorCount", m.evaluator_count);
  v.Field("useChiefInTfConfig", m.use_chief_in_tf_config);
  v.Field("packageUris", m.package_uris);
  v.Field("pythonModule", m.python_module);
  v.Field("args", m.args);
  v.Field("hyperparameters", m.hyperparameters);
  v.Field("region", m.region);
  v.Field("jobDir", m.job_dir);
  v.Field("runtimeVersion", m.runtime_version);
  v.Field("pythonVersion", m.python_version);
  v.Field("scheduling", m.scheduling);
  v.Field("network", m.network);
  v.Field("serviceAccount", m.service_account);
  v.Field("encryptionConfig", m.encryption_config);
  v.Field("enableWebAccess", m.enable_web_access);
  v.Unsupported("nasJobSpec", "Neural Architecture Search is not supported by trainyard");
}

// §2.5
void VisitFields(auto& v, MessageOf<HyperparameterMetric> auto& m) {
  v.Field("trainingStep", m.training_step);
  v.Field("objectiveValue", m.objective_value);
}

void VisitFields(auto& v, MessageOf<BuiltInAlgorithmOutput> auto& m) {
  v.Field("framework", m.framework);
  v.Field("runtimeVersion", m.runtime_version);
  v.Field("pythonVersion", m.python_version);
  v.Field("modelPath", m.model_path);
}

void VisitFields(auto& v, MessageOf<HyperparameterOutput> auto& m) {
  v.Field("trialId", m.trial_id);
  v.Field("hyperparameters", m.hyperparameters);
  v.Field("finalMetric", m.final_metric);
  v.Field("allMetrics", m.all_metrics);
  v.Field("startTime", m.start_time);
  v.Field("endTime", m.end_time);
  v.Field("state", m.state);
  v.Field("isTrialStoppedEarly", m.is_trial_stopped_early);
  v.Field("builtInAlgorithmOutput", m.built_in_algorithm_output);
  v.Field("webAccessUris", m.web_access_uris);
}

void VisitFields(auto& v, MessageOf<TrainingOutput> auto& m) {
  v.Field("completedTrialCount", m.completed_trial_count);
  v.Field("consumedMLUnits", m.consumed_ml_units);
  v.Field("trials", m.trials);
  v.Field("isHyperparameterTuningJob", m.is_hyperparameter_tuning_job);
  v.Field("hyperparameterMetricTag", m.hyperparameter_metric_tag);
  v.Field("isBuiltInAlgorithmJob", m.is_built_in_algorithm_job);
  v.Field("builtInAlgorithmOutput", m.built_in_algorithm_output);
  v.Field("webAccessUris", m.web_access_uris);
  v.Unsupported("nasJobOutput", "Neural Architecture Search is not supported by trainyard");
}

// §2.1
void VisitFields(auto& v, MessageOf<Job> auto& m) {
  constexpr std::string_view kNoPrediction = "batch prediction is not supported by trainyard";
  v.Field("jobId", m.job_id);
  v.Field("createTime", m.create_time);
  v.Field("startTime", m.start_time);
  v.Field("endTime", m.end_time);
  v.Field("state", m.state);
  v.Field("errorMessage", m.error_message);
  v.Field("labels", m.labels);
  v.Bytes("etag", m.etag);
  v.Field("trainingInput", m.training_input);
  v.Unsupported("predictionInput", kNoPrediction);
  v.Field("trainingOutput", m.training_output);
  v.Unsupported("predictionOutput", kNoPrediction);
  v.Unsupported("explanationInput", kNoPrediction);
  v.Unsupported("explanationOutput", kNoPrediction);
  v.Field("jobPosition", m.job_position);
}

}  // namespace trainyard::model::fields
