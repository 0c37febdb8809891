// trainyard v1's answers as JSON: the `Cluster`, `ListReplicasResponse`, `Caller`, `Suspension`,
// `PriorityClasses` and `PriorityClass` schemas of api/discovery_data/trainyard_v1.json, written
// here once for the handlers (api/trainyard/) and for tests/api/discovery_schemas_test.cc, which
// checks each against its schema. The sharing policy's are sched/sharing_json.h's. Pure.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "access/principal.h"
#include "control/cluster_view.h"
#include "control/executor.h"
#include "model/job.h"

namespace trainyard::server {

// The cluster as `project`'s caller may see it (control/cluster_view.h's rules): the nodes and
// their devices with who holds each, the project's queued jobs and how many others wait, and
// every project's standing.
nlohmann::json ClusterJson(const control::ClusterView& view, std::string_view project);

// A job's replicas: {"replicas": [...]}, each with its node and devices once placed.
nlohmann::json ReplicasJson(const std::vector<control::ReplicaInfo>& replicas);

// Who the caller is (nullopt: the server checks no tokens), each grant with the permissions its
// role holds, and the projects it may see (`held`: the projects that hold a job, read only for a
// caller that sees them all).
nlohmann::json CallerJson(const std::optional<access::Principal>& caller,
                          const std::vector<std::string>& held);

// A job's suspension: its id, its state and whether it is suspended (model::IsSuspended).
nlohmann::ordered_json SuspensionJson(const model::Job& job);

// The priority classes, name to value; and one class.
nlohmann::json PriorityClassesJson(const std::map<std::string, int, std::less<>>& classes);
nlohmann::json PriorityClassJson(std::string_view name, int value);

}  // namespace trainyard::server
