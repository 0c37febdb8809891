// How a job that is a Kubeflow TFJob (`model::JobExtras::kubeflow`) names its replicas, and the
// TF_CONFIG the Kubeflow operator gives them (docs/reference/kubeflow-tfjob.md §4), instead of AI
// Platform's. Pure.
//
// - Types and indices: the engine's master is the TFJob's primary, `primary_type` "chief" or
//   "master" with index 0; when it is "worker" (a TFJob without Chief/Master) the master is
//   worker 0 and the engine's worker i is Kubeflow's worker i + 1. Parameter servers are "ps",
//   evaluators "evaluator", indices unchanged.
// - Names: `<job>-<type>-<index>` (the headless Service) and `<job>-<type>-<index>.<namespace>.svc`
//   (the name TF_CONFIG uses). Containers resolve both to the peer's host through their hosts
//   file (`podman run --add-host`); the port is the replica's real one, not 2222, since replicas
//   share the host's network.
// - TF_CONFIG is Go's json.Marshal of {cluster, task, environment}: compact, `cluster` keys
//   sorted (chief < evaluator < master < ps < worker), evaluators listed, each type's addresses
//   by index, `task` {type, index}, `environment` "cloud"; no `job` key. A job of one replica
//   gets none (the operator's isDistributed). Names are DNS labels, so Go's HTML escaping of
//   <, > and & never applies.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "model/job_extras.h"
#include "plan/replicas.h"

namespace trainyard::plan {

// A replica as the TFJob names it.
struct KubeflowTask {
  std::string type;  // "chief", "master", "worker", "ps", "evaluator"
  int index = 0;

  bool operator==(const KubeflowTask&) const = default;
};

KubeflowTask KubeflowTaskOf(const model::KubeflowNaming& naming, Role role, int index);

// "<job>-<type>-<index>", the replica's Service (and pod) name.
std::string KubeflowServiceName(const model::KubeflowNaming& naming, const KubeflowTask& task);

// "<job>-<type>-<index>.<namespace>.svc", its name in TF_CONFIG.
std::string KubeflowDnsName(const model::KubeflowNaming& naming, const KubeflowTask& task);

// One replica of the cluster: who it is and the "host:port" its peers reach it at.
struct KubeflowMember {
  KubeflowTask task;
  std::string address;
};

// The exact TF_CONFIG of the replica `task` (see above); `members` in any order.
std::string KubeflowTfConfig(const std::vector<KubeflowMember>& members, const KubeflowTask& task);

// Whether `host` is an IPv4 or IPv6 literal (what `--add-host` accepts), not a host name.
bool IsAddressLiteral(std::string_view host);

}  // namespace trainyard::plan
