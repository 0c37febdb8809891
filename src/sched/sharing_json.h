// The sharing policy as trainyard v1 JSON (issue #34): what `trainyard quota set` sends and the
// admin API answers, and how the store keeps each project's row. Pure; each Decode checks every
// field and answers INVALID_ARGUMENT with one violation per problem, so bad input changes nothing.
//
// One project's quota:
//   {"project": "p", "accelerators": {"NVIDIA_TESLA_T4": 4}, "cpus": 64, "memory": "256Gi",
//    "jobs": 20, "weight": 2}
// Every key is optional ("project", when sent, must be the path's); an absent limit is no limit,
// an absent weight is 1. Accelerators are the catalog's names; counts, vCPUs and jobs are whole
// numbers ≥ 0; memory is a Kubernetes quantity in Mi, Gi or Ti ("1536Mi", "256Gi"); weight ≥ 1.
// A priority class: {"value": 1000}, 0 to 1000 (ml v1's scheduling.priority), its name a
// Kubernetes PriorityClass name (lower-case letters, digits, '-' and '.', at most 253).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"
#include "catalog/catalog.h"
#include "sched/sharing.h"

namespace trainyard::sched {

// "256Gi" → 262144; INVALID_ARGUMENT (on field "memory") for another spelling, 0 or too large.
Result<std::int64_t> ParseMemoryMib(std::string_view text);
// 262144 → "256Gi", 1536 → "1536Mi": the largest of Ti, Gi, Mi that divides it; 0 → "0".
std::string MemoryQuantity(std::int64_t mib);

Result<ProjectQuota> DecodeProjectQuota(std::string_view project, std::string_view json,
                                        const catalog::Catalog& catalog);
std::string EncodeProjectQuota(const ProjectQuota& quota);

// The priority class `name` from its body; INVALID_ARGUMENT for a bad name or value.
Result<int> DecodePriorityClass(std::string_view name, std::string_view json);

// The whole policy: {"projects": [<quota>…], "priorityClasses": {"high": 1000}}.
std::string EncodeSharingPolicy(const SharingPolicy& policy);

}  // namespace trainyard::sched
