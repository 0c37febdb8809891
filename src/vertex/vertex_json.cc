#include "vertex/vertex_json.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <utility>

#include <fmt/format.h>

#include "base/time_format.h"

namespace trainyard::vertex {
namespace {

using nlohmann::ordered_json;

constexpr std::array<std::pair<model::JobState, std::string_view>, 7> kStates = {{
    {model::JobState::kQueued, "JOB_STATE_QUEUED"},
    {model::JobState::kPreparing, "JOB_STATE_PENDING"},
    {model::JobState::kRunning, "JOB_STATE_RUNNING"},
    {model::JobState::kSucceeded, "JOB_STATE_SUCCEEDED"},
    {model::JobState::kFailed, "JOB_STATE_FAILED"},
    {model::JobState::kCancelling, "JOB_STATE_CANCELLING"},
    {model::JobState::kCancelled, "JOB_STATE_CANCELLED"},
}};

constexpr int kCodeCancelled = 1;        // google.rpc.Code CANCELLED
constexpr int kCodeInvalidArgument = 3;  // how Vertex reports a replica's failure

ordered_json ParsedOrEmpty(std::string_view text) {
  ordered_json value = ordered_json::parse(text, nullptr, /*allow_exceptions=*/false);
  return value.is_discarded() ? ordered_json::object() : value;
}

}  // namespace

std::string_view CollectionOf(std::string_view kind) {
  return kind == kTuningJobKind ? "hyperparameterTuningJobs" : "customJobs";
}

bool IsResourceIn(const model::Job& job, std::string_view kind, std::string_view location) {
  return job.extras.has_value() && job.extras->vertex.has_value() &&
         job.extras->vertex->kind == kind && job.extras->vertex->location == location;
}

std::string ResourceName(std::string_view project, const model::Job& job) {
  const model::VertexResource& vertex = *job.extras->vertex;
  return fmt::format("projects/{}/locations/{}/{}/{}", project, vertex.location,
                     CollectionOf(vertex.kind), job.job_id);
}

std::string_view VertexStateName(model::JobState state) {
  for (const auto& [engine, name] : kStates) {
    if (engine == state) {
      return name;
    }
  }
  return "JOB_STATE_UNSPECIFIED";
}

std::optional<model::JobState> EngineStateOf(std::string_view vertex_state) {
  std::string upper(vertex_state);
  std::ranges::transform(upper, upper.begin(),
                         [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
  for (const auto& [engine, name] : kStates) {
    if (name == upper) {
      return engine;
    }
  }
  return std::nullopt;
}

ordered_json EncodeCommonFields(std::string_view project, const model::Job& job) {
  const model::VertexResource& vertex = *job.extras->vertex;
  ordered_json out = ordered_json::object();
  out["name"] = ResourceName(project, job);
  out["displayName"] = vertex.display_name;
  out["state"] = VertexStateName(job.state);
  std::optional<WallTime> updated;
  for (const auto& [key, time] :
       {std::pair{"createTime", job.create_time}, std::pair{"startTime", job.start_time},
        std::pair{"endTime", job.end_time}}) {
    if (time.has_value()) {
      out[key] = FormatTimestamp(*time);
      updated = updated.has_value() ? std::max(*updated, *time) : *time;
    }
  }
  if (updated.has_value()) {
    out["updateTime"] = FormatTimestamp(*updated);
  }
  if (job.state == model::JobState::kFailed || job.state == model::JobState::kCancelled) {
    out["error"] = {
        {"code", job.state == model::JobState::kFailed ? kCodeInvalidArgument : kCodeCancelled},
        {"message", job.error_message}};
  }
  if (!job.labels.empty()) {
    out["labels"] = job.labels;
  }
  return out;
}

ordered_json EncodeCustomJob(std::string_view project, const model::Job& job) {
  ordered_json out = EncodeCommonFields(project, job);
  out["jobSpec"] = ParsedOrEmpty(job.extras->vertex->document);
  if (job.training_output.has_value() && !job.training_output->web_access_uris.empty()) {
    out["webAccessUris"] = job.training_output->web_access_uris;
  }
  return out;
}

}  // namespace trainyard::vertex
