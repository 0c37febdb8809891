// Every documented AI Platform Training rule for a job request
// (docs/reference/ai-platform-training.md §2.8's checklist and the GPU/TPU/overview seeds), read
// against a `catalog::Catalog`: machine types, accelerators, the allowed-count table, regions and
// zones, scale tiers and runtime versions all come from the catalog, so new hardware is data.
// Output-only fields (state, createTime, …) are not checked.
//
// trainyard's own choices where Google's behaviour is unknown: absolute local paths are accepted
// besides gs:// URIs (packageUris, jobDir); replica counts are at most 1000; boot disks at most
// 64000 GB; a worker/ps/evaluator imageUri needs a masterConfig.imageUri; a runtime TPU job must
// name its (TPU-capable) runtimeVersion.
//
// A built-in algorithm's job (master image from algorithms/data/builtin_algorithms.json): its
// trainingInput.args are the algorithm's documented `--name=value` arguments (or `--name value`,
// a bare `--flag`; `--job-dir` besides), each checked for its type and range and named by its
// place ("trainingInput.args[3]"); a required one missing is named at "trainingInput.args";
// validation_split + test_split at most the algorithm's limit (0.40); no containerCommand or
// containerArgs; at most its replicas; a tuning job's parameters only its tunable arguments.
//
// What a replica is started with must fit one execve(2) (exec_limits.cc, which says why): one
// argument, or one NAME=value, at most 131071 bytes (Linux's MAX_ARG_STRLEN, 128 KiB with its
// NUL); a replica's command line and environment at most 1 MiB, each string counting its bytes,
// its NUL and its pointer; no NUL in arguments or values; variable names not empty, without '='
// or NUL. A job from another API brings a role's environment and own arguments in its extras;
// their violations are named as if they were fields of the role's config:
// "trainingInput.workerConfig.containerEnv[2].value" (a role running a container), "….env[2]"
// (a role running a process), "….args[0]" (a Python package role's own arguments), so that each
// API can name its own field (vertex::MlFieldToVertex, kube::MappedJobCauses).
#pragma once

#include <string_view>
#include <vector>

#include "base/status.h"
#include "catalog/catalog.h"
#include "model/job.h"

namespace trainyard::validate {

// Returns all violations in `job`, in request-field order; empty means valid. Field paths are
// camelCase request paths ("jobId", "trainingInput.workerConfig.acceleratorConfig.count").
// Pure and thread-safe: reads only its arguments.
std::vector<FieldViolation> Validate(const model::Job& job, const catalog::Catalog& catalog);

// `Validate` as a Status: OK, or INVALID_ARGUMENT carrying every violation; a valid job whose
// master image is a built-in algorithm this server does not run (algorithms/algorithms.h):
// FAILED_PRECONDITION naming the image.
Status ValidateJob(const model::Job& job, const catalog::Catalog& catalog);

// The job-id rule alone (`^[A-Za-z][A-Za-z0-9_]{0,127}$`), for ids that arrive in a URL.
bool IsValidJobId(std::string_view job_id);

// The id the server gives a Vertex AI job (docs/reference/ai-platform-training.md §13): 1 to 19
// decimal digits, no leading 0.
bool IsVertexJobId(std::string_view job_id);

// Any id a stored job may have: an ml v1 job id or a Vertex AI job's numeric one.
bool IsStoredJobId(std::string_view job_id);

// The label rules alone (at field `labels`), for label updates of a stored job.
std::vector<FieldViolation> ValidateLabels(const model::Labels& labels);

}  // namespace trainyard::validate
