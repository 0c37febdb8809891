// A Vertex AI CustomJob as a trainyard job (docs/reference/ai-platform-training.md §13): the worker
// pools become the engine's roles, so the queue, placement, replicas, logs and restarts are those
// of every job. Pure.
//
// The contract: pool 0 is the master (the chief, replicaCount 1), pool 1 the workers, pool 2 the
// parameter servers, pool 3 the evaluators; scaleTier CUSTOM with each pool's machine type and
// accelerators. A containerSpec is the role's imageUri, containerCommand and containerArgs; a
// pythonPackageSpec is the job's packageUris and pythonModule (every pool must run the same
// package and module: the engine stages one package per job) with each pool's args kept in its
// role's extras. Each pool's env goes to its role's extras; `scheduling.timeout` is
// maxRunningTime, `restartJobOnWorkerRestart` restarts every replica together, and the resource
// itself is `JobExtras::vertex`, which also names the replicas by pool ("workerpool1-0").
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "model/job.h"
#include "model/job_id_scheme.h"
#include "vertex/custom_job.h"

namespace trainyard::vertex {

struct MappingContext {
  std::string job_id;  // the numeric id the server chose
  std::string kind = "CustomJob";
  std::string location;  // the region of the resource's name
  std::string document;  // the resource's spec as accepted, echoed on the wire
  // Executor image prefixes that run with the server's Python (DefaultHostPythonPrefixes plus
  // `serve --executor-image-prefix`).
  std::vector<std::string> host_python_prefixes;
  const catalog::Catalog* catalog = nullptr;  // the built-in one when null
};

// A Vertex job's id from 64 random bits: 19 digits, as Vertex's look (10^18 plus the draw modulo
// 8 * 10^18, so below 2^63 and never with a leading zero).
std::string JobIdFromDraw(std::uint64_t draw);

// The ids a new Vertex job may take: JobIdFromDraw of a fresh draw each time, five tries (two
// draws meeting is already rare).
model::JobIdScheme JobIdScheme();

// The prefixes of Google's prebuilt training images (vertex/data/executor_images.json).
const std::vector<std::string>& DefaultHostPythonPrefixes();

// The rules of Vertex AI that ml v1's validation does not state, for a jobSpec at `path`
// ("jobSpec", or "trialJobSpec"): 1–4 pools, pool 0 set with replicaCount 1, each set pool with a
// machine type, a positive replica count and exactly one of containerSpec / pythonPackageSpec;
// what trainyard cannot run (pools mixing containers and packages, different packages per pool,
// an executor image it cannot find). Every violation at once.
std::vector<FieldViolation> ValidateJobSpec(const CustomJobSpec& spec, std::string_view path,
                                            const MappingContext& context);

// The display name and labels of a resource (Vertex's rules: 1–128 characters of displayName).
std::vector<FieldViolation> ValidateDisplayName(std::string_view display_name);

// The job to submit for `job` (which passed ValidateJobSpec and ValidateDisplayName). It still
// goes through validate::Validate (machine types, GPU counts, regions, labels) when submitted;
// `MlFieldToVertex` turns the paths of those violations into the request's.
model::Job ToJob(const CustomJob& job, const MappingContext& context);

// The training input of a jobSpec, and its role extras (shared with HyperparameterTuningJob's
// trialJobSpec).
model::TrainingInput ToTrainingInput(const CustomJobSpec& spec, std::string_view location);
model::JobExtras ToExtras(const CustomJobSpec& spec, const MappingContext& context,
                          std::string display_name);

// An ml v1 field path of a mapped job as the Vertex field it came from, under `spec_path`:
// "trainingInput.masterType" → "jobSpec.workerPoolSpecs[0].machineSpec.machineType",
// "trainingInput.workerConfig.acceleratorConfig.count" →
// "jobSpec.workerPoolSpecs[1].machineSpec.acceleratorCount", a role's env and own args (as
// validate.h names them) the pool's "containerSpec.env", "pythonPackageSpec.env" or
// "pythonPackageSpec.args", "labels.x" stays; a study's
// ("trainingInput.hyperparameters.maxTrials" → "maxTrialCount", "….params[2].minValue" →
// "studySpec.parameters[2]", or `parameter_paths[2]` when given: where a flattened conditional
// parameter sits in the request). Other paths are returned under `spec_path` as they are.
std::string MlFieldToVertex(std::string_view ml_path, std::string_view spec_path,
                            std::span<const std::string> parameter_paths = {});

// A submit's `status` with its violations' ml v1 paths turned into the request's
// (MlFieldToVertex); other statuses as they are.
Status WithVertexPaths(const Status& status, std::string_view spec_path,
                       std::span<const std::string> parameter_paths);

}  // namespace trainyard::vertex
