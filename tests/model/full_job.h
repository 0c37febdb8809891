// A `Job` with every field of every message set, for round-trip tests.
#pragma once

#include <chrono>

#include "model/job.h"

namespace trainyard::model {

inline ReplicaConfig FullReplica(const std::string& image) {
  return ReplicaConfig{
      .accelerator_config = AcceleratorConfig{.count = 8, .type = "TPU_V3"},
      .image_uri = image,
      .tpu_tf_version = "2.2",
      .container_command = {"python", "-m", "trainer"},
      .container_args = {"--epochs=3", ""},
      .disk_config = DiskConfig{.boot_disk_type = "pd-standard", .boot_disk_size_gb = 200},
  };
}

inline HyperparameterOutput FullTrial(const std::string& id) {
  using std::chrono::seconds;
  return HyperparameterOutput{
      .trial_id = id,
      .hyperparameters = {{"lr", "0.05"}, {"units", "64"}},
      .final_metric = HyperparameterMetric{.training_step = 1000, .objective_value = 0.925},
      .all_metrics = {HyperparameterMetric{.training_step = 10, .objective_value = -1.5e-7},
                      HyperparameterMetric{.training_step = INT64_MAX, .objective_value = 0}},
      .start_time = WallTime(seconds(1519769380)),
      .end_time = WallTime(seconds(1519769380) + std::chrono::nanoseconds(1)),
      .state = JobState::kSucceeded,
      .is_trial_stopped_early = true,
      .built_in_algorithm_output = BuiltInAlgorithmOutput{.framework = "TENSORFLOW",
                                                          .runtime_version = "1.15",
                                                          .python_version = "3.7",
                                                          .model_path = "gs://b/model"},
      .web_access_uris = {{"master-replica-0", "https://example.com/0"}},
  };
}

inline Job FullJob() {
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  TrainingInput input{
      .scale_tier = ScaleTier::kCustom,
      .master_type = "n1-highcpu-16",
      .master_config = FullReplica("gcr.io/p/master:1"),
      .worker_type = "cloud_tpu",
      .worker_config = FullReplica("gcr.io/p/worker:1"),
      .worker_count = 9,
      .parameter_server_type = "n1-highmem-8",
      .parameter_server_config = ReplicaConfig{},
      .parameter_server_count = 3,
      .evaluator_type = "n1-standard-4",
      .evaluator_config = FullReplica("gcr.io/p/eval:1"),
      .evaluator_count = INT64_MIN,
      .use_chief_in_tf_config = true,
      .package_uris = {"gs://b/trainer-0.0.0.tar.gz", "gs://b/dep.whl"},
      .python_module = "trainer.task",
      .args = {"--foo=bar", "--x", "1", "ünïcødé \"quoted\"\n"},
      .hyperparameters =
          HyperparameterSpec{
              .goal = GoalType::kMinimize,
              .params = {ParameterSpec{.parameter_name = "lr",
                                       .type = ParameterType::kDouble,
                                       .min_value = 0.0,
                                       .max_value = 0.1,
                                       .scale_type = ScaleType::kUnitReverseLogScale},
                         ParameterSpec{.parameter_name = "opt",
                                       .type = ParameterType::kCategorical,
                                       .categorical_values = {"adam", "sgd"}},
                         ParameterSpec{.parameter_name = "batch",
                                       .type = ParameterType::kDiscrete,
                                       .discrete_values = {16, 32.5, 1e300}}},
              .max_trials = 40,
              .max_parallel_trials = 2,
              .max_failed_trials = -1,
              .hyperparameter_metric_tag = "accuracy",
              .enable_trial_early_stopping = true,
              .algorithm = Algorithm::kGridSearch,
              .resume_previous_job_id = "old_job",
          },
      .region = "us-central1",
      .job_dir = "gs://b/out",
      .runtime_version = "2.11",
      .python_version = "3.7",
      .scheduling =
          Scheduling{
              .max_running_time = seconds(7200),
              .max_wait_time = milliseconds(1800500),
              .priority = 1000,
              .resilient_to_worker_restart = true,
              .strategy = SchedulingStrategy::kLowCost,
          },
      .network = "projects/12345/global/networks/default",
      .service_account = "trainer@p.iam.gserviceaccount.com",
      .encryption_config =
          EncryptionConfig{.kms_key_name = "projects/p/locations/r/keyRings/k/cryptoKeys/c"},
      .enable_web_access = false,
  };
  TrainingOutput output{
      .completed_trial_count = 2,
      .consumed_ml_units = 1.59,
      .trials = {FullTrial("1"), FullTrial("2")},
      .is_hyperparameter_tuning_job = true,
      .hyperparameter_metric_tag = "accuracy",
      .is_built_in_algorithm_job = true,
      .built_in_algorithm_output = BuiltInAlgorithmOutput{.framework = "XGBOOST"},
      .web_access_uris = {{"worker-replica-0", "https://example.com/w0"}},
  };
  return Job{
      .job_id = "job_1",
      .create_time = WallTime(seconds(1519769380)),
      .start_time = WallTime(seconds(1519769404) + milliseconds(250)),
      .end_time = WallTime(seconds(1519770000) + std::chrono::microseconds(1)),
      .state = JobState::kCancelled,
      .error_message = "The replica worker 4 exited with a non-zero status of 1.",
      .labels = {{"team", "vision"}, {"", "empty-key"}},
      .etag = "w6rbTnTz3wQ=",
      .training_input = input,
      .training_output = output,
      .job_position = 7,
  };
}

}  // namespace trainyard::model
