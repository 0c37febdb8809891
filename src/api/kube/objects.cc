#include "api/kube/objects.h"

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "control/job_layout.h"
#include "control/replica_history.h"
#include "kube/tfjob_decode.h"
#include "kube/tfjob_mapping.h"

namespace trainyard::server::kube_internal {
namespace {

using nlohmann::json;

kube::ReplicaState StateOf(const std::string& executor_state) {
  if (executor_state == "RUNNING" || executor_state == "STOPPING") {
    return kube::ReplicaState::kRunning;
  }
  if (executor_state == "RESTARTING") {
    return kube::ReplicaState::kRestarting;
  }
  if (executor_state == "EXITED") {
    return kube::ReplicaState::kExited;
  }
  return kube::ReplicaState::kPending;
}

// The exit code in the executor's words (ExitStatus::Describe: "exited with status 0",
// "exited with a non-zero status of 3", "was terminated by signal 9 (SIGKILL)"): 128 + N for a
// signal, as Kubernetes shows it.
std::optional<int> ExitCodeOf(const std::string& text) {
  for (const auto& [prefix, offset] : {std::pair<std::string_view, int>{"exited with status ", 0},
                                       {"exited with a non-zero status of ", 0},
                                       {"terminated by signal ", 128}}) {
    if (const auto at = text.find(prefix); at != std::string::npos) {
      try {
        return offset + std::stoi(text.substr(at + prefix.size()));
      } catch (const std::exception&) {
        return std::nullopt;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::int64_t CurrentRevision(const Context& context) {
  Result<std::int64_t> revision = context.store.Revision();
  return revision.ok() ? *revision : 0;
}

std::vector<kube::ReplicaView> ReplicaViewsOf(const Context& context,
                                              const store::RevisionedJob& job) {
  std::vector<kube::ReplicaView> views;
  if (context.options.replicas) {
    if (auto running = context.options.replicas(job.project, job.job.job_id)) {
      for (const control::ReplicaInfo& info : *running) {
        kube::ReplicaView view{
            .task_name = info.task_name, .state = StateOf(info.state), .restarts = info.restarts};
        view.exit_code = ExitCodeOf(info.exit_status);
        view.started_at = info.started_at;
        view.finished_at = info.ended_at;
        views.push_back(std::move(view));
      }
      if (!views.empty()) {
        return views;
      }
    }
  }
  if (!model::IsTerminal(job.job.state) || context.options.data_dir.empty()) {
    return views;
  }
  // An ended job: its replicas' exit files, which outlive the executor's memory.
  const model::KubeflowNaming naming = kube::KubeflowNamingOf(job.job);
  const control::JobLayout layout(context.options.data_dir, job.project, job.job.job_id);
  for (const kube::TypeCount& count : kube::ReplicaCountsOf(job.job)) {
    for (int i = 0; i < count.replicas; ++i) {
      const std::optional<std::string> task =
          kube::TaskNameOf(kube::KubeReplica{count.type, i}, naming);
      if (!task.has_value()) {
        continue;
      }
      const std::optional<int> code = control::RecordedExitCode(layout, *task);
      if (code.has_value()) {
        views.push_back(kube::ReplicaView{.task_name = *task,
                                          .state = kube::ReplicaState::kExited,
                                          .exit_code = code,
                                          .finished_at = job.job.end_time});
      }
    }
  }
  return views;
}

std::string RenderTFJob(const Context& context, const store::RevisionedJob& job) {
  const model::KubeObject& object = *job.job.extras->kube;
  json rendered = json::object();
  if (kube::KubeResult<kube::DecodedTFJob> decoded = kube::DecodeTFJob(object.document);
      decoded.ok()) {
    kube::TFJob& tfjob = decoded->job;
    tfjob.api_version = object.api_version;
    tfjob.metadata.name = object.name;
    tfjob.metadata.namespace_name = object.namespace_name;
    tfjob.metadata.uid = object.uid;
    tfjob.metadata.generation = object.generation;
    tfjob.metadata.resource_version = std::to_string(job.revision);
    tfjob.metadata.creation_timestamp = job.job.create_time;
    tfjob.metadata.deletion_timestamp = object.deletion_time;
    // As stored, however it was set: `trainyard jobs suspend` sets it as Kueue does.
    tfjob.run_policy.suspend = job.job.extras->suspended;
    const kube::TFJobStatus status =
        kube::StatusOf(job.job, ReplicaViewsOf(context, job), context.clock.Now());
    return kube::EncodeTFJob(tfjob, &status);
  }
  // A stored document always decodes (the server wrote it); say so rather than hide the object.
  return json{{"apiVersion", object.api_version},
              {"kind", "TFJob"},
              {"metadata", {{"name", object.name}, {"namespace", object.namespace_name}}}}
      .dump();
}

kube::TFJobRow TableRowOf(const Context& context, const store::RevisionedJob& job) {
  const model::KubeObject& object = *job.job.extras->kube;
  kube::TFJobRow row;
  row.metadata.name = object.name;
  row.metadata.namespace_name = object.namespace_name;
  row.metadata.uid = object.uid;
  row.metadata.resource_version = std::to_string(job.revision);
  row.metadata.creation_timestamp = job.job.create_time;
  row.metadata.labels = job.job.labels;
  const kube::TFJobStatus status =
      kube::StatusOf(job.job, ReplicaViewsOf(context, job), context.clock.Now());
  row.state = status.conditions.empty() ? "" : status.conditions.back().type;
  row.replicas = kube::ReplicasText(kube::ReplicaCountsOf(job.job));
  row.job_id = job.job.job_id;
  if (job.job.create_time.has_value()) {
    row.age = std::chrono::duration_cast<Duration>(context.clock.Now() - *job.job.create_time);
  }
  return row;
}

bool SelectsTFJob(const Selector& labels, const Selector& fields, const store::RevisionedJob& job) {
  const model::KubeObject& object = *job.job.extras->kube;
  if (!fields.Matches([&](std::string_view key) -> std::optional<std::string> {
        if (key == "metadata.name") {
          return object.name;
        }
        if (key == "metadata.namespace") {
          return object.namespace_name;
        }
        return std::nullopt;
      })) {
    return false;
  }
  if (labels.empty()) {
    return true;
  }
  kube::KubeResult<kube::DecodedTFJob> decoded = kube::DecodeTFJob(object.document);
  return decoded.ok() && labels.Matches(decoded->job.metadata.labels);
}

}  // namespace trainyard::server::kube_internal
