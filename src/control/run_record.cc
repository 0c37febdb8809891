#include "control/run_record.h"

#include <filesystem>
#include <system_error>

#include <nlohmann/json.hpp>

#include "base/time_format.h"
#include "os/file.h"
#include "os/no_follow.h"

namespace trainyard::control {
namespace {

using nlohmann::json;

json EncodeContainer(const run::ContainerSpec& container) {
  json mounts = json::array();
  for (const run::Mount& mount : container.mounts) {
    mounts.push_back(
        {{"source", mount.source}, {"target", mount.target}, {"readOnly", mount.read_only}});
  }
  json out = {{"image", container.image},
              {"entrypoint", container.entrypoint},
              {"args", container.args},
              {"name", container.name},
              {"labels", container.labels},
              {"mounts", std::move(mounts)},
              {"deviceIndices", container.device_indices}};
  if (!container.working_dir.empty()) {
    out["workingDir"] = container.working_dir;
  }
  if (!container.hosts.empty()) {
    out["hosts"] = container.hosts;
  }
  return out;
}

run::ContainerSpec DecodeContainer(const json& in) {
  using Pairs = std::vector<std::pair<std::string, std::string>>;
  std::vector<run::Mount> mounts;
  for (const json& mount : in.at("mounts")) {
    mounts.push_back(run::Mount{.source = mount.at("source").get<std::string>(),
                                .target = mount.at("target").get<std::string>(),
                                .read_only = mount.at("readOnly").get<bool>()});
  }
  return run::ContainerSpec{
      .image = in.at("image").get<std::string>(),
      .entrypoint = in.at("entrypoint").get<std::vector<std::string>>(),
      .args = in.at("args").get<std::vector<std::string>>(),
      .name = in.at("name").get<std::string>(),
      .labels = in.at("labels").get<Pairs>(),
      .mounts = std::move(mounts),
      .device_indices = in.at("deviceIndices").get<std::vector<int>>(),
      // Absent from records written before jobs could set them.
      .working_dir = in.value("workingDir", ""),
      .hosts = in.value("hosts", Pairs{}),
  };
}

// A replica's view (run/file_view.h): a replica restarted after recovery sees what it saw.
json EncodeView(const run::FileView& view) {
  return {{"hidden", view.hidden},
          {"writable", view.writable},
          {"readable", view.readable},
          {"privateDirs", view.private_dirs}};
}

run::FileView DecodeView(const json& in) {
  return run::FileView{
      .hidden = in.at("hidden").get<std::string>(),
      .writable = in.at("writable").get<std::vector<std::string>>(),
      .readable = in.at("readable").get<std::vector<std::string>>(),
      .private_dirs = in.at("privateDirs").get<std::vector<std::string>>(),
  };
}

json EncodeReplica(const RunRecord::Replica& replica) {
  json env = json::array();
  for (const auto& [name, value] : replica.spec.env) {
    env.push_back(json::array({name, value}));
  }
  json out = {
      {"taskName", replica.task_name},
      {"pid", replica.pid},
      {"restarts", replica.restarts},
      {"seconds", replica.seconds},
      {"argv", replica.spec.argv},
      {"env", std::move(env)},
      {"workingDir", replica.spec.working_dir},
      {"logPath", replica.spec.log_path},
      {"exitPath", replica.spec.exit_path},
      {"node", replica.node},
      {"deviceIndices", replica.device_indices},
      {"cpus", replica.cpus},
      {"memoryMib", replica.memory_mib},
  };
  if (replica.started) {
    out["started"] = FormatTimestamp(*replica.started);
  }
  if (replica.spec.container) {
    out["container"] = EncodeContainer(*replica.spec.container);
  }
  if (replica.spec.view) {
    out["view"] = EncodeView(*replica.spec.view);
  }
  return out;
}

RunRecord::Replica DecodeReplica(const json& in) {
  RunRecord::Replica replica;
  replica.task_name = in.at("taskName").get<std::string>();
  replica.pid = in.at("pid").get<int>();
  replica.restarts = in.at("restarts").get<int>();
  replica.seconds = in.at("seconds").get<double>();
  replica.spec.argv = in.at("argv").get<std::vector<std::string>>();
  for (const json& pair : in.at("env")) {
    replica.spec.env.emplace_back(pair.at(0).get<std::string>(), pair.at(1).get<std::string>());
  }
  replica.spec.working_dir = in.at("workingDir").get<std::string>();
  replica.spec.log_path = in.at("logPath").get<std::string>();
  replica.spec.exit_path = in.at("exitPath").get<std::string>();
  replica.node = in.at("node").get<std::size_t>();
  replica.device_indices = in.at("deviceIndices").get<std::vector<int>>();
  replica.cpus = in.at("cpus").get<int>();
  replica.memory_mib = in.at("memoryMib").get<std::int64_t>();
  if (in.contains("container")) {
    replica.spec.container = DecodeContainer(in.at("container"));
  }
  if (in.contains("view")) {  // absent from records written before views
    replica.spec.view = DecodeView(in.at("view"));
  }
  if (in.contains("started")) {
    replica.started = ParseTimestamp(in.at("started").get<std::string>());
    if (!replica.started) {
      throw std::invalid_argument("started is not an RFC 3339 timestamp");
    }
  }
  return replica;
}

}  // namespace

std::string EncodeRunRecord(const RunRecord& record) {
  json replicas = json::array();
  for (const RunRecord::Replica& replica : record.replicas) {
    replicas.push_back(EncodeReplica(replica));
  }
  json out = {{"replicas", std::move(replicas)}};
  if (record.restarts != 0) {
    out["restarts"] = record.restarts;
  }
  if (!record.batch_id.empty()) {
    out["batchId"] = record.batch_id;
    out["firstPort"] = record.first_port;
  }
  return out.dump(1);
}

Result<RunRecord> DecodeRunRecord(std::string_view text) {
  try {
    const json in = json::parse(text);
    RunRecord record;
    for (const json& replica : in.at("replicas")) {
      record.replicas.push_back(DecodeReplica(replica));
    }
    record.restarts = in.value("restarts", 0);
    if (in.contains("batchId")) {
      record.batch_id = in.at("batchId").get<std::string>();
      record.first_port = in.at("firstPort").get<int>();
    }
    return record;
  } catch (const std::exception& error) {
    return Status::InvalidArgument(std::string("Not a run record: ") + error.what());
  }
}

Status WriteFileAtomically(const std::string& path, const std::string& text,
                           bool private_to_group) {
  std::error_code error;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), error);
  return os::ReplaceFileNoFollow(path, text, private_to_group ? 0640 : 0644);
}

Status WriteRunRecord(const std::string& path, const RunRecord& record) {
  return WriteFileAtomically(path, EncodeRunRecord(record));
}

Result<RunRecord> ReadRunRecord(const std::string& path) {
  const std::optional<std::string> text = os::ReadFileText(path);
  if (!text) {
    return Status::NotFound("No run record at " + path);
  }
  return DecodeRunRecord(*text);
}

}  // namespace trainyard::control
