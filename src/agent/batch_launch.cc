#include "agent/batch_launch.h"

#include <nlohmann/json.hpp>

#include "control/run_record.h"
#include "model/json_codec.h"
#include "os/file.h"

namespace trainyard::agent {
namespace {

using nlohmann::json;

json EncodeContext(const plan::PlanContext& context) {
  return {
      {"jobId", context.job_id},
      {"trialId", context.trial_id},
      {"hpMetricTag", context.hp_metric_tag},
      {"hpMetricDir", context.hp_metric_dir},
      {"trialArgs", context.trial_args},
      {"python", context.python},
      {"pythonpath", context.pythonpath},
      {"runtimeModules", context.runtime_modules},
      {"gcsMount", context.gcs_mount},
      {"storageEmulatorHost", context.storage_emulator_host},
      {"accessToken", context.access_token},
  };
}

plan::PlanContext DecodeContext(const json& in) {
  plan::PlanContext context;
  context.job_id = in.at("jobId").get<std::string>();
  context.trial_id = in.at("trialId").get<std::string>();
  context.hp_metric_tag = in.at("hpMetricTag").get<std::string>();
  context.hp_metric_dir = in.at("hpMetricDir").get<std::string>();
  context.trial_args = in.at("trialArgs").get<std::vector<std::string>>();
  context.python = in.at("python").get<std::string>();
  context.pythonpath = in.at("pythonpath").get<std::string>();
  // Absent from the launch files of servers before containers (issue #16).
  context.runtime_modules = in.value("runtimeModules", std::string());
  context.gcs_mount = in.at("gcsMount").get<std::string>();
  context.storage_emulator_host = in.at("storageEmulatorHost").get<std::string>();
  // Absent from the launch files of servers before tokens (issue #17).
  context.access_token = in.value("accessToken", std::string());
  return context;
}

}  // namespace

std::string EncodeBatchLaunch(const BatchLaunch& launch) {
  json addresses = json::object();
  for (const auto& [node, address] : launch.node_addresses) {
    addresses[node] = address;
  }
  return json{
      {"job", json::parse(model::EncodeStoredJob(launch.job))},
      {"project", launch.project},
      {"trialId", launch.trial_id},
      {"dataDir", launch.data_dir},
      {"context", EncodeContext(launch.context)},
      {"firstPort", launch.first_port},
      {"nodeAddresses", std::move(addresses)},
      {"supervisor", launch.supervisor},
      {"restart",
       {{"maxRestarts", launch.restart.max_restarts},
        {"initialBackoffMs", launch.restart.initial_backoff.count()},
        {"maxBackoffMs", launch.restart.max_backoff.count()}}},
  }
      .dump(1);
}

Result<BatchLaunch> DecodeBatchLaunch(std::string_view text) {
  try {
    const json in = json::parse(text);
    BatchLaunch launch;
    Result<model::Job> job = model::DecodeStoredJob(in.at("job").dump());
    if (!job.ok()) {
      return Status::InvalidArgument("Not a launch file: its job is not valid: " +
                                     job.status().message());
    }
    launch.job = std::move(*job);
    launch.project = in.at("project").get<std::string>();
    launch.trial_id = in.at("trialId").get<std::string>();
    launch.data_dir = in.at("dataDir").get<std::string>();
    launch.context = DecodeContext(in.at("context"));
    launch.first_port = in.at("firstPort").get<int>();
    for (const auto& [node, address] : in.at("nodeAddresses").items()) {
      launch.node_addresses[node] = address.get<std::string>();
    }
    launch.supervisor = in.at("supervisor").get<std::string>();
    const json& restart = in.at("restart");
    launch.restart.max_restarts = restart.at("maxRestarts").get<int>();
    launch.restart.initial_backoff =
        std::chrono::milliseconds(restart.at("initialBackoffMs").get<std::int64_t>());
    launch.restart.max_backoff =
        std::chrono::milliseconds(restart.at("maxBackoffMs").get<std::int64_t>());
    if (!launch.job.training_input) {
      return Status::InvalidArgument("Not a launch file: its job has no trainingInput");
    }
    return launch;
  } catch (const std::exception& error) {
    return Status::InvalidArgument(std::string("Not a launch file: ") + error.what());
  }
}

Status WriteBatchLaunch(const std::string& path, const BatchLaunch& launch) {
  return control::WriteFileAtomically(path, EncodeBatchLaunch(launch));
}

Result<BatchLaunch> ReadBatchLaunch(const std::string& path) {
  const std::optional<std::string> text = os::ReadFileText(path);
  if (!text) {
    return Status::NotFound("No launch file at " + path);
  }
  return DecodeBatchLaunch(*text);
}

std::string EncodeTaskStarted(const TaskStarted& started) {
  return json{{"node", started.node},
              {"host", started.host},
              {"pid", started.pid},
              {"restarts", started.restarts}}
      .dump();
}

Result<TaskStarted> DecodeTaskStarted(std::string_view text) {
  try {
    const json in = json::parse(text);
    return TaskStarted{.node = in.at("node").get<std::string>(),
                       .host = in.at("host").get<std::string>(),
                       .pid = in.at("pid").get<int>(),
                       .restarts = in.at("restarts").get<int>()};
  } catch (const std::exception& error) {
    return Status::InvalidArgument(std::string("Not a started file: ") + error.what());
  }
}

}  // namespace trainyard::agent
