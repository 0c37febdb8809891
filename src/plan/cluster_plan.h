// What each replica is started with: its argument vector and the environment trainyard adds
// (docs/reference/ai-platform-training.md §7): TF_CONFIG, CLUSTER_SPEC, CLOUD_ML_JOB,
// CLOUD_ML_JOB_ID, CLOUD_ML_TRIAL_ID and the hypertune variables in a tuning trial, TPU_CONFIG when
// a TPU is asked for, the PyTorch variables (MASTER_ADDR, MASTER_PORT, WORLD_SIZE, RANK,
// LOCAL_RANK), CUDA_VISIBLE_DEVICES, STORAGE_EMULATOR_HOST, PYTHONPATH and PYTHONUNBUFFERED. Pure:
// addresses, devices and paths come in through the context, decided by placement and the launcher.
//
// Decisions documented here (and in docs/ARCHITECTURE.md):
// - The primary replica is "chief" in TF_CONFIG for runtime versions the catalog marks
//   `chief_in_tf_config` (>= 2.1) or does not know (taken as a current TF 2 runtime), and for
//   containers (masterConfig.imageUri) with useChiefInTfConfig; "master" otherwise (runtime jobs
//   ignore useChiefInTfConfig). CLUSTER_SPEC always says "master" and lists evaluators; TF_CONFIG
//   never lists evaluators. Cluster keys appear only for roles that exist. `job` is the
//   TrainingInput with snake_case keys (an object in TF_CONFIG, a JSON string in CLUSTER_SPEC,
//   the same string in CLOUD_ML_JOB); `task.trial` is set in tuning trials.
// - `--job-dir gs://b/p` reaches the program as `--job-dir <gcs_mount>/b/p`, a directory whose
//   files are the bucket's objects (as Vertex AI's /gcs/), so plain file IO works; the URI stays
//   in TF_CONFIG's job.job_dir and in TRAINYARD_JOB_DIR_URI (set only for gs:// job dirs).
// - argv: runtime jobs `python -m <pythonModule> <args…> <trial_args…> --job-dir <dir>`; no
//   `--job-dir` pair when jobDir is empty.
// - A built-in algorithm this server runs (ReplicaShape::algorithm_image): argv
//   `<algorithm's python> -m <its module> <args…> <trial_args…> --job-dir <dir>`, what its image
//   would be given, as a process with PYTHONPATH (trainyard's python/) and TRAINYARD_GCS_MOUNT
//   (where its gs:// data paths are read).
// - Containers (an imageUri, the master's for roles without their own): `container` instead of
//   argv, with Kubernetes' command/args rules (docs/reference/ai-platform-training.md §2.3,
//   "Command/args semantics"): containerCommand replaces the image's ENTRYPOINT (and drops its
//   CMD); the arguments `<containerArgs…> <args…> <trial_args…> --job-dir <dir>` replace its
//   CMD when there are any, so `args` and the flags trainyard adds reach the ENTRYPOINT; none of
//   them: the image's defaults.
// - Tuning trials only: CLOUD_ML_TRIAL_ID; CLOUD_ML_HP_METRIC_TAG from the context, else the
//   job's hyperparameterMetricTag, else "training/hptuning/metric"; CLOUD_ML_HP_METRIC_FILE
//   `<hp_metric_dir>/<task name>.metrics` when the context names a directory (one file per
//   replica, so a worker reporting too never overwrites the master's).
// - TPU_CONFIG (docs/reference/ai-platform-training.md §6), on the master and on the TPU worker:
//   {"project":"trainyard","zone":<the job region's first zone offering the TPU type>,
//    "tpu_node_name":"<job id>-tpu"}. The project is the TPU host's, which here is trainyard.
// - PyTorch: the master is RANK 0 and worker i is RANK i+1; WORLD_SIZE = 1 + workerCount;
//   MASTER_ADDR is the master's host and MASTER_PORT `pytorch_master_port`; LOCAL_RANK is 0;
//   parameter servers and evaluators get no PyTorch variables.
// - CUDA_VISIBLE_DEVICES is always set: the placed device indices comma-joined, "" when none
//   (so a replica never sees GPUs it was not given). With emulated accelerators it is "" and
//   TRAINYARD_EMULATED_ACCELERATORS says what the replica was given ("NVIDIA_TESLA_T4:4").
// - PYTHONPATH is exactly `context.pythonpath` (the staged packages; the launcher does not
//   append the inherited one), for runtime jobs only: a container keeps its image's.
//   PYTHONUNBUFFERED=1 so logs arrive line by line.
// - Variables are listed in a fixed order (the order above), so plans compare exactly.
// - A job with extras (model/job_extras.h): each replica's role `env` follows trainyard's
//   variables; a name it sets again replaces trainyard's (removed from its place, so every name
//   appears once and the job's value wins). Its `working_dir` is the container's working
//   directory (inside the image, which must have it: podman 4 does not create it), or a runtime
//   job's process directory; with `--containers host` a container's is not used (a path in an
//   image, not on the host).
// - A Kubeflow job (extras.kubeflow; plan/kubeflow_config.h): TF_CONFIG is the operator's (none
//   for a single replica) and there is no CLUSTER_SPEC (a second, differently named cluster
//   would contradict it); the other variables stay. Peers are named
//   `<job>-<type>-<index>.<namespace>.svc` and each container's `hosts` resolve those names (and
//   the short `<job>-<type>-<index>`) to the peers' hosts. Where names cannot resolve, the
//   address stays the host: replicas that are processes (runtime jobs, `--containers host`) and
//   peers whose host is a name rather than an address (podman's --add-host takes addresses).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "model/job.h"
#include "plan/replicas.h"

namespace trainyard::plan {

using Environment = std::vector<std::pair<std::string, std::string>>;

// Where one replica runs, as placement and the launcher decided.
struct ReplicaPlacement {
  std::string host = "127.0.0.1";
  int port = 0;                     // its cluster port (evaluators: listed only in CLUSTER_SPEC)
  std::vector<int> device_indices;  // accelerator device indices on its node
  bool emulated = false;            // the devices are emulated
};

struct PlanContext {
  std::string job_id;                   // CLOUD_ML_JOB_ID; "" means `job.job_id`
  std::string trial_id;                 // "" unless a tuning trial ("1", "2", …)
  std::string hp_metric_tag;            // tuning: CLOUD_ML_HP_METRIC_TAG
  std::string hp_metric_dir;            // tuning: where CLOUD_ML_HP_METRIC_FILE files go
  std::vector<std::string> trial_args;  // tuning: "--lr=0.01", after args, before --job-dir
  std::string python = "python3";       // interpreter for runtime (python module) jobs
  std::string pythonpath;               // runtime jobs' PYTHONPATH ("" when none)
  // trainyard's own Python modules (`hypertune`), for containers to mount ("" when none).
  std::string runtime_modules;
  std::string gcs_mount;              // local directory holding gs:// buckets ("" when none)
  std::string storage_emulator_host;  // "http://127.0.0.1:8470" ("" when none)
  // TRAINYARD_TOKEN: the job's own token for a server that checks tokens ("" when none), and the
  // file holding it, for gcloud (CLOUDSDK_AUTH_ACCESS_TOKEN_FILE).
  std::string access_token;
  std::string access_token_file;
  std::string project;  // CLOUDSDK_CORE_PROJECT, for gcloud in a replica ("" to leave it out)
  int pytorch_master_port = 0;  // MASTER_PORT
  // Container replicas run their command on the host (`--containers host`): no hosts file, so
  // a Kubeflow job's peers are named by their hosts.
  bool containers_on_host = false;
};

// A replica that runs a container image.
struct ContainerLaunch {
  std::string image;
  std::vector<std::string> command;  // replaces the image's ENTRYPOINT when non-empty
  std::vector<std::string> args;     // replaces the image's CMD when non-empty
  std::string working_dir;           // inside the container; "" for the image's
  // (name, address) lines of the container's hosts file: a Kubeflow job's peer names.
  std::vector<std::pair<std::string, std::string>> hosts;

  bool operator==(const ContainerLaunch&) const = default;
};

struct ReplicaLaunch {
  std::string task_name;
  Role role = Role::kMaster;
  int index = 0;
  std::vector<std::string> argv;  // argv[0]: the interpreter; empty for a container
  std::optional<ContainerLaunch> container;
  Environment env;  // added to (and overriding) the inherited environment; a container's own
  // A runtime job's process directory as the job sets it; "" for trainyard's per-task one.
  // (A container's is container->working_dir.)
  std::string working_dir;
};

// One launch per shape, in the same order. `placements` is parallel to `shapes` (checked), and
// `job` has a trainingInput (checked). FAILED_PRECONDITION with a message for users when the job
// cannot run here: a gs:// job dir with no gcs_mount. INVALID_ARGUMENT when the job dir's URI is
// malformed (see `LocalPathOf`).
Result<std::vector<ReplicaLaunch>> BuildClusterPlan(const model::Job& job,
                                                    const std::vector<ReplicaShape>& shapes,
                                                    const std::vector<ReplicaPlacement>& placements,
                                                    const PlanContext& context,
                                                    const catalog::Catalog& catalog);

// The scheme of a Cloud Storage URI.
inline constexpr std::string_view kGcsScheme = "gs://";

// A `gs://` URI's bucket and the path below it: "" for the bucket itself, empty segments and a
// trailing slash dropped (gs://b//p/ -> {"b", "p"}).
struct GcsPath {
  std::string bucket;
  std::string path;
};

// `uri` split into its bucket and path. INVALID_ARGUMENT for text that is not a gs:// URI, a URI
// with no bucket, a "." or ".." segment, or a NUL.
Result<GcsPath> SplitGcsUri(std::string_view uri);

// `gs://bucket/path` under `gcs_mount` ("<gcs_mount>/bucket/path"; empty segments and a
// trailing slash dropped: gs://b/p/ -> <gcs_mount>/b/p); other text is returned as is.
// INVALID_ARGUMENT for a gs:// URI with no bucket, a "." or ".." segment, or a NUL;
// FAILED_PRECONDITION for a gs:// URI when `gcs_mount` is empty.
Result<std::string> LocalPathOf(std::string_view uri, std::string_view gcs_mount);

}  // namespace trainyard::plan
