// Refusal at create (issue #34): a job that can never fit its project's quota, even with nothing
// else of the project running, is refused when it is created rather than left queued forever.
// Pure: the job's demand (placement.h DemandOf, one trial's for a tuning job) against the
// project's ProjectQuota (sharing.h).
//
// RESOURCE_EXHAUSTED is HTTP 429, Google's code for quota and capacity
// (docs/reference/ai-platform-training.md §1.5). The quota metrics are Vertex AI's names, and the
// message is worded as Vertex's quota errors read ("The following quota metrics exceed quota
// limits: aiplatform.googleapis.com/custom_model_training_nvidia_t4_gpus", as users report them;
// docs/reference/ has no quota error of its own): `custom_model_training_<accelerator>_gpus` (or
// `_cores` for a TPU) with the accelerator's catalog name lower-cased and without "TESLA_",
// `custom_model_training_cpus`, and trainyard's own `custom_model_training_memory_mib` and
// `custom_model_training_concurrent_jobs`.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "sched/amounts.h"
#include "sched/inventory.h"
#include "sched/placement.h"
#include "sched/sharing.h"

namespace trainyard::sched {

// One resource a job needs more of than its project's quota allows.
struct QuotaExcess {
  std::string metric;     // "custom_model_training_nvidia_t4_gpus"
  std::string what;       // "NVIDIA_TESLA_T4", "vCPUs", "MiB of memory", "jobs"
  std::string kube_name;  // as a Kubernetes ResourceQuota names it: "requests.cpu"
  std::int64_t requested = 0;
  std::int64_t limit = 0;

  friend bool operator==(const QuotaExcess&, const QuotaExcess&) = default;
};

// The quota metric of accelerator `name` ("NVIDIA_TESLA_T4" →
// "custom_model_training_nvidia_t4_gpus").
std::string AcceleratorQuotaMetric(std::string_view name);

// What `job` needs beyond `quota` at once, in the order accelerators (by name), vCPUs, memory,
// jobs; empty when it fits (or `quota` is null: no limits).
std::vector<QuotaExcess> QuotaExcesses(const ProjectQuota* quota, const JobDemand& job);

// RESOURCE_EXHAUSTED in Google's words, one violation per excess (server/rpc_error.h answers them
// as a google.rpc.QuotaFailure: `field` is its subject, "project:<p>"). `excesses` not empty.
Status QuotaRefusal(std::string_view project, const std::vector<QuotaExcess>& excesses);

// Kubernetes admission's words for the same: "exceeded quota: <project>, requested:
// requests.cpu=96, limited: requests.cpu=64" (the job's own need: there is no "used" to add).
std::string KubeQuotaMessage(std::string_view project, const std::vector<QuotaExcess>& excesses);

// What each project holding anything in `running` (keys "project/jobId[/…]") holds at once,
// counted as its quota is: devices by the inventory's types, the replicas' vCPUs and memory, and
// its jobs (a tuning job's trials are one job).
std::map<std::string, Amounts, std::less<>> UseByProject(const Inventory& inventory,
                                                         const std::vector<Allocation>& running);

}  // namespace trainyard::sched
