// The flags of `trainyard jobs submit training` (and `jobs validate`) and how they become a `Job`,
// as gcloud 528 does it (surface/ai_platform/jobs/submit/training.py, command_lib/ml_engine/
// jobs_util.py, api_lib/ml_engine/jobs.py BuildTrainingJob):
//   * `--config` is a whole Job; each flag given sets its field over it. Labels given by flag
//     replace the file's map; `--region` and the package list always replace the file's values
//     (so a file's `packageUris` never survive, exactly as in gcloud); user args after a bare
//     `--` replace the file's `args` (even when none follow); `enableWebAccess` is always sent,
//     `false` unless `--enable-web-access`.
//   * Accelerator and image flags set single fields inside `*Config`, keeping the file's others.
// trainyard extensions (gcloud has none): `--evaluator-count`, `--evaluator-machine-type`,
// `--evaluator-accelerator`, `--evaluator-image-uri`; and `--tpu-tf-version`, `--network`, which
// gcloud offers only in its beta track, are always accepted.
// Pure and thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "cli/commands/flag_values.h"
#include "model/job.h"

namespace trainyard::cli {

// Flag text as given on the command line; nullopt when the flag is absent.
struct RawReplicaFlags {
  std::optional<std::string> machine_type;
  std::optional<std::string> count;  // master: never set
  std::optional<std::string> accelerator;
  std::optional<std::string> image_uri;
};

struct RawTrainingFlags {
  std::string job_id;
  std::string project;                // --project, else $TRAINYARD_PROJECT, else "default"
  std::optional<std::string> region;  // --region, else $TRAINYARD_REGION
  std::optional<std::string> config;
  std::optional<std::string> scale_tier;
  RawReplicaFlags master;
  RawReplicaFlags worker;
  RawReplicaFlags parameter_server;
  RawReplicaFlags evaluator;
  std::optional<std::string> tpu_tf_version;
  std::optional<std::string> use_chief_in_tf_config;
  std::optional<std::string> job_dir;
  std::optional<std::string> module_name;
  std::optional<std::string> package_path;
  std::optional<std::string> packages;  // the last --packages wins, as in gcloud
  std::optional<std::string> staging_bucket;
  std::optional<std::string> runtime_version;
  std::optional<std::string> python_version;
  std::optional<std::string> network;
  std::optional<std::string> service_account;
  std::vector<std::string> labels;  // every --labels, merged in order
  std::optional<std::string> kms_key;
  std::optional<std::string> kms_keyring;
  std::optional<std::string> kms_location;
  std::optional<std::string> kms_project;
  bool enable_web_access = false;
  bool async = false;
  bool stream_logs = false;
  std::optional<std::vector<std::string>> user_args;  // set when a bare `--` was given
};

// Typed flag values; nullopt when the flag is absent.
struct ReplicaFlags {
  std::optional<std::string> machine_type;
  std::optional<std::int64_t> count;
  std::optional<model::AcceleratorConfig> accelerator;
  std::optional<std::string> image_uri;
};

struct TrainingFlags {
  std::string job_id;
  std::string project;
  std::optional<std::string> region;
  std::optional<std::string> config_path;
  std::optional<model::ScaleTier> scale_tier;
  ReplicaFlags master;
  ReplicaFlags worker;
  ReplicaFlags parameter_server;
  ReplicaFlags evaluator;
  std::optional<std::string> tpu_tf_version;
  std::optional<bool> use_chief_in_tf_config;
  std::optional<ObjectRef> job_dir;
  std::optional<std::string> module_name;
  std::optional<std::string> package_path;
  std::vector<std::string> packages;
  std::optional<std::string> staging_bucket;  // the bucket name
  std::optional<std::string> runtime_version;
  std::optional<std::string> python_version;
  std::optional<std::string> network;
  std::optional<std::string> service_account;
  std::optional<model::Labels> labels;
  std::optional<std::string> kms_key_name;  // "projects/…/cryptoKeys/…"
  bool enable_web_access = false;
  bool async = false;
  bool stream_logs = false;
  std::optional<std::vector<std::string>> user_args;
};

// Checks and converts every flag value, and the client-side rules gcloud applies to flags alone
// (each replica count needs its machine type and the reverse; `--async` excludes
// `--stream-logs`; `--master-image-uri` excludes `--runtime-version`; `--scale-tier custom`
// needs `--master-machine-type`; a partial KMS key). Messages are gcloud's, e.g.
// "argument --master-accelerator: The count of the accelerator must be greater than 0.".
Result<TrainingFlags> ParseTrainingFlags(const RawTrainingFlags& raw,
                                         const catalog::Catalog& catalog);

// `base` (the `--config` Job, or an empty one) with the flags set over it; `package_uris` are
// the staged `--packages`/`--package-path` URIs (see packages.h).
model::Job ApplyTrainingFlags(model::Job base, const TrainingFlags& flags,
                              std::vector<std::string> package_uris);

// gcloud's last client-side check: "Non-custom jobs must have packages." unless the job has
// package URIs or a master image.
Status CheckHasPackages(const model::Job& job);

}  // namespace trainyard::cli
