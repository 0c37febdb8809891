#include "kube/tfjob_status.h"

#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "base/time_format.h"
#include "kube/decode_internal.h"
#include "kube/tfjob_mapping.h"

namespace trainyard::kube {
namespace {

using nlohmann::ordered_json;

JobCondition Condition(std::string type, bool status, std::string reason, std::string message,
                       WallTime time) {
  return JobCondition{.type = std::move(type),
                      .status = status ? "True" : "False",
                      .reason = std::move(reason),
                      .message = std::move(message),
                      .last_update_time = time,
                      .last_transition_time = time};
}

// The Running condition (or Restarting while a replica restarts: the two exclude each other).
JobCondition RunningCondition(const model::Job& job, const std::vector<ReplicaView>& replicas,
                              const std::string& who, WallTime started) {
  std::optional<WallTime> restarting;
  for (const ReplicaView& replica : replicas) {
    if (replica.state == ReplicaState::kRestarting) {
      restarting = std::max(restarting.value_or(started), replica.finished_at.value_or(started));
    }
  }
  if (restarting.has_value() && job.state == model::JobState::kRunning) {
    return Condition("Restarting", true, "TFJobRestarting",
                     fmt::format("TFJob {} is restarting because a replica failed.", who),
                     *restarting);
  }
  return Condition("Running", true, "TFJobRunning", fmt::format("TFJob {} is running.", who),
                   started);
}

std::string FailedMessage(const model::Job& job, const std::string& who) {
  if (job.state == model::JobState::kCancelled) {
    const bool deleted = job.extras && job.extras->kube && job.extras->kube->deletion_time;
    return fmt::format("TFJob {} has failed because it was {}.", who,
                       deleted ? "deleted" : "cancelled");
  }
  return job.error_message.empty() ? fmt::format("TFJob {} has failed.", who)
                                   : fmt::format("TFJob {} has failed: {}", who, job.error_message);
}

void CountReplicas(const model::Job& job, const std::vector<ReplicaView>& replicas,
                   TFJobStatus& status) {
  for (const TypeCount& count : ReplicaCountsOf(job)) {
    status.replica_statuses[count.type] = ReplicaStatus{};
  }
  const model::KubeflowNaming naming = KubeflowNamingOf(job);
  for (const ReplicaView& replica : replicas) {
    const std::optional<KubeReplica> kube = KubeReplicaOf(replica.task_name, naming);
    if (!kube.has_value()) {
      continue;
    }
    ReplicaStatus& counts = status.replica_statuses[kube->type];
    switch (replica.state) {
      case ReplicaState::kRunning:
        ++counts.active;
        break;
      case ReplicaState::kRestarting:
        // The operator counts the failed pod until it is recreated
        // (docs/reference/kubeflow-tfjob.md §2.2).
        ++counts.failed;
        break;
      case ReplicaState::kExited:
        ++(replica.exit_code == 0 ? counts.succeeded : counts.failed);
        break;
      case ReplicaState::kPending:
        break;  // pending pods are counted nowhere (docs/reference/kubeflow-tfjob.md §3)
    }
  }
}

ordered_json TimeJson(const std::optional<WallTime>& time) {
  return time.has_value() ? ordered_json(FormatTimestamp(*time)) : ordered_json();
}

}  // namespace

model::KubeflowNaming KubeflowNamingOf(const model::Job& job) {
  if (job.extras && job.extras->kubeflow) {
    return *job.extras->kubeflow;
  }
  std::string name = job.job_id;
  std::ranges::transform(name, name.begin(), [](char c) {
    return c == '_' ? '-' : static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  });
  return model::KubeflowNaming{.job_name = name, .namespace_name = "default"};
}

std::vector<TypeCount> ReplicaCountsOf(const model::Job& job) {
  const model::KubeflowNaming naming = KubeflowNamingOf(job);
  const std::string primary = PrimaryType(naming);
  const model::TrainingInput input = job.training_input.value_or(model::TrainingInput{});
  const bool worker_primary = primary == kWorker;
  std::vector<TypeCount> counts;
  for (const std::string_view type : kReplicaTypes) {
    std::int64_t n = 0;
    if (type == primary && !worker_primary) {
      n = 1;
    } else if (type == kWorker) {
      n = input.worker_count + (worker_primary ? 1 : 0);
    } else if (type == kPS) {
      n = input.parameter_server_count;
    } else if (type == kEvaluator) {
      n = input.evaluator_count;
    }
    if (n > 0) {
      counts.push_back(TypeCount{std::string(type), static_cast<std::int32_t>(n)});
    }
  }
  return counts;
}

TFJobStatus StatusOf(const model::Job& job, const std::vector<ReplicaView>& replicas,
                     WallTime now) {
  const model::KubeflowNaming naming = KubeflowNamingOf(job);
  const std::string who = fmt::format("{}/{}", naming.namespace_name, naming.job_name);
  const WallTime created = job.create_time.value_or(now);
  const bool ended = model::IsTerminal(job.state);
  TFJobStatus status;
  status.conditions.push_back(Condition("Created", true, "TFJobCreated",
                                        fmt::format("TFJob {} is created.", who), created));
  const bool suspended = model::IsSuspended(job) && !ended;
  if (suspended) {
    status.conditions.push_back(Condition("Suspended", true, "TFJobSuspended",
                                          fmt::format("TFJob {} is suspended.", who), created));
  } else if (job.extras && job.extras->resumed) {
    // The operator's condition once runPolicy.suspend is false again (§2.3), kept to the end;
    // trainyard keeps no time of the resumption: the (re)start's, or the creation's while queued.
    status.conditions.push_back(Condition("Suspended", false, "TFJobResumed",
                                          fmt::format("TFJob {} is resumed.", who),
                                          job.start_time.value_or(created)));
  }
  if (!suspended && job.start_time.has_value()) {
    const WallTime started = *job.start_time;
    switch (job.state) {
      case model::JobState::kRunning:
      case model::JobState::kCancelling:
        status.conditions.push_back(RunningCondition(job, replicas, who, started));
        break;
      case model::JobState::kSucceeded:
      case model::JobState::kFailed:
      case model::JobState::kCancelled: {
        // Setting Succeeded or Failed flips Running to False (docs/reference/kubeflow-tfjob.md §3).
        JobCondition running = Condition("Running", false, "TFJobRunning",
                                         fmt::format("TFJob {} is running.", who), started);
        running.last_update_time = job.end_time.value_or(now);
        running.last_transition_time = running.last_update_time;
        status.conditions.push_back(std::move(running));
        break;
      }
      default:
        break;  // PREPARING: started, nothing runs yet
    }
  }
  const WallTime ended_at = job.end_time.value_or(now);
  if (job.state == model::JobState::kSucceeded) {
    status.conditions.push_back(Condition("Succeeded", true, "TFJobSucceeded",
                                          fmt::format("TFJob {} successfully completed.", who),
                                          ended_at));
  } else if (job.state == model::JobState::kFailed || job.state == model::JobState::kCancelled) {
    status.conditions.push_back(
        Condition("Failed", true, "TFJobFailed", FailedMessage(job, who), ended_at));
  }
  if (!suspended) {
    CountReplicas(job, replicas, status);
  } else {
    for (const TypeCount& count : ReplicaCountsOf(job)) {
      // docs/reference/kubeflow-tfjob.md §2.3: active set to 0.
      status.replica_statuses[count.type] = ReplicaStatus{};
    }
  }
  status.start_time = job.start_time;
  if (ended) {
    status.completion_time = ended_at;
  }
  // The operator stamps its last reconcile; trainyard reconciles on events, so the stamp is the
  // time of the status's last change, the same on every read: a read alone changes nothing
  // (`kubectl diff` of an unchanged manifest finds no difference).
  WallTime changed = created;
  for (const JobCondition& condition : status.conditions) {
    changed = std::max(changed, condition.last_update_time);
  }
  status.last_reconcile_time = changed;
  return status;
}

namespace internal {

ordered_json StatusJson(const TFJobStatus& status) {
  ordered_json conditions = ordered_json::array();
  for (const JobCondition& condition : status.conditions) {
    conditions.push_back({{"type", condition.type},
                          {"status", condition.status},
                          {"reason", condition.reason},
                          {"message", condition.message},
                          {"lastUpdateTime", FormatTimestamp(condition.last_update_time)},
                          {"lastTransitionTime", FormatTimestamp(condition.last_transition_time)}});
  }
  ordered_json replicas = ordered_json::object();
  for (const auto& [type, counts] : status.replica_statuses) {
    ordered_json item = ordered_json::object();
    // Go's omitempty: zero counts are left out, so an idle type reads {}.
    if (counts.active > 0) {
      item["active"] = counts.active;
    }
    if (counts.succeeded > 0) {
      item["succeeded"] = counts.succeeded;
    }
    if (counts.failed > 0) {
      item["failed"] = counts.failed;
    }
    replicas[type] = std::move(item);
  }
  ordered_json out = {{"conditions", std::move(conditions)},
                      {"replicaStatuses", std::move(replicas)}};
  if (status.start_time.has_value()) {
    out["startTime"] = TimeJson(status.start_time);
  }
  if (status.completion_time.has_value()) {
    out["completionTime"] = TimeJson(status.completion_time);
  }
  if (status.last_reconcile_time.has_value()) {
    out["lastReconcileTime"] = TimeJson(status.last_reconcile_time);
  }
  return out;
}

}  // namespace internal

std::string EncodeTFJobStatus(const TFJobStatus& status) {
  return internal::StatusJson(status).dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace trainyard::kube
