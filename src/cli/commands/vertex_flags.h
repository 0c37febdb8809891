// The request bodies of `trainyard ai custom-jobs create` and `ai hp-tuning-jobs create`, built
// from their flags and `--config` text exactly as gcloud 528 builds them
// (command_lib/ai/custom_jobs/custom_jobs_util.py `ConstructCustomJobSpec`, custom_jobs/
// validation.py, api_lib/ai/hp_tuning_jobs/client.py `Create`), with gcloud's refusals and words:
//   * `--worker-pool-spec` i is worker pool i (an empty value is an empty pool, except the first);
//     its keys are gcloud's ArgDict spec; machine-type is required, exactly one of
//     container-image-uri and executor-image-uri (the latter with python-module), and
//     accelerator-count needs accelerator-type, which defaults its count to 1.
//   * Pools given by flag replace the config's; `--args` and `--command` then apply to every pool
//     (args to container and Python pools, command to container pools); `--python-package-uris`
//     only to the pools of the flags.
//   * hp-tuning: the config is a whole HyperparameterTuningJob; `--max-trial-count` and
//     `--parallel-trial-count` override it (each 1 when neither says), `--algorithm` sets the
//     study's, and `--network`, `--service-account`, `--enable-web-access` go to `trialJobSpec`.
// trainyard builds no images, so `local-package-path` is refused. Errors are INVALID_ARGUMENT with
// the text gcloud prints after "ERROR: (<command>) ". Pure and thread-safe.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"

namespace trainyard::cli {

// Flags both create verbs share; each vector holds every occurrence of its flag, in order.
struct VertexCommonFlags {
  std::optional<std::string> display_name;
  std::vector<std::string> labels;
  std::optional<std::string> service_account;
  std::optional<std::string> network;
  bool enable_web_access = false;
  bool enable_dashboard_access = false;
};

struct CustomJobFlags {
  VertexCommonFlags common;
  std::vector<std::string> worker_pool_specs;
  std::vector<std::string> args;     // each occurrence a comma-separated list; they add up
  std::vector<std::string> command;  // likewise
  std::vector<std::string> python_package_uris;
};

struct HpTuningJobFlags {
  VertexCommonFlags common;
  std::optional<std::string> max_trial_count;
  std::optional<std::string> parallel_trial_count;
  std::optional<std::string> max_failed_trial_count;  // trainyard's; gcloud 528 has no such flag
  std::optional<std::string> algorithm;               // grid-search, random-search, …
};

// One `--worker-pool-spec` value: its keys and values, in order, later keys winning.
using WorkerPoolFlag = std::vector<std::pair<std::string, std::string>>;

// Parses each `--worker-pool-spec` (gcloud's ArgDict: only its keys, integers where it wants them)
// and checks them together as gcloud does; the message names the offending key.
Result<std::vector<WorkerPoolFlag>> ParseWorkerPoolFlags(const std::vector<std::string>& values);

// The CustomJob body: `{"displayName", "jobSpec", "labels"}`. `config_text` is the `--config`
// file's text (nullopt without one), `config_path` its name for messages.
Result<std::string> CustomJobRequestBody(const CustomJobFlags& flags,
                                         const std::optional<std::string>& config_text,
                                         const std::string& config_path);

// The HyperparameterTuningJob body, from the `--config` file's text and the flags.
Result<std::string> HpTuningJobRequestBody(const HpTuningJobFlags& flags,
                                           const std::string& config_text,
                                           const std::string& config_path);

}  // namespace trainyard::cli
