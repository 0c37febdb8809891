// The service's messages about a TFJob (its job's service.log: replicas started, restarts, the
// outcome, pull progress) as core/v1 Events, which `kubectl describe tfjob` lists.
#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/file.h"
#include "control/job_layout.h"
#include "logs/log_record.h"
#include "server/kube_internal.h"
#include "server/kube_objects.h"
#include "server/kube_selectors.h"

namespace trainyard::server::kube_internal {
namespace {

using nlohmann::json;

// An event's reason from the words of the service's message: data, first match wins.
struct ReasonRule {
  std::string_view words;
  std::string_view reason;
  bool warning;
};
constexpr std::array<ReasonRule, 9> kReasons = {{
    {"restarting", "Restarting", true},
    {"failed", "Failed", true},
    {"could not be pulled", "ErrImagePull", true},
    {"non-zero status", "Error", true},
    {"cancel", "Cancelled", true},
    {"pull", "Pulling", false},
    {"started", "Started", false},
    {"succeeded", "Succeeded", false},
    {"successfully", "Succeeded", false},
}};

std::pair<std::string_view, bool> ReasonOf(std::string_view text) {
  std::string lower(text);
  std::ranges::transform(lower, lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const ReasonRule& rule : kReasons) {
    if (lower.find(rule.words) != std::string::npos) {
      return {rule.reason, rule.warning};
    }
  }
  return {"Trainyard", false};
}

}  // namespace

HttpResponse ListEvents(const Context& context, const Request& request) {
  const std::string* text = request.Query("fieldSelector");
  Result<Selector> fields = Selector::ParseFields(text == nullptr ? "" : *text);
  if (!fields.ok()) {
    return Error(kube::BadRequest(fields.status().message()));
  }
  Result<std::vector<store::RevisionedJob>> jobs = context.store.ListKubeObjects(
      request.namespace_name, kTFJobKind, 0, /*live_only=*/true, kMaxListed);
  if (!jobs.ok()) {
    return Error(kube::InternalError(jobs.status().message()));
  }
  json items = json::array();
  for (const store::RevisionedJob& job : *jobs) {
    const model::KubeObject& object = *job.job.extras->kube;
    const auto field = [&](std::string_view key) -> std::optional<std::string> {
      if (key == "involvedObject.name") {
        return object.name;
      }
      if (key == "involvedObject.namespace" || key == "metadata.namespace") {
        return object.namespace_name;
      }
      if (key == "involvedObject.kind") {
        return object.kind;
      }
      if (key == "involvedObject.uid") {
        return object.uid;
      }
      return std::nullopt;
    };
    if (!fields->Matches(field) || context.options.data_dir.empty()) {
      continue;
    }
    const std::string path =
        control::JobLayout(context.options.data_dir, job.project, job.job.job_id).service_log();
    const std::optional<std::string> log = ReadFileText(path);
    if (!log.has_value()) {
      continue;
    }
    std::size_t at = 0;
    while (at < log->size()) {
      const std::size_t end = log->find('\n', at);
      if (end == std::string::npos) {
        break;
      }
      const std::size_t offset = at;
      const std::optional<logs::LogRecord> record =
          logs::ParseRecord(std::string_view(*log).substr(at, end - at));
      at = end + 1;
      if (!record.has_value()) {
        continue;
      }
      const auto [reason, warning] = ReasonOf(record->text);
      const std::string time = std::string(record->timestamp.substr(0, 19)) + "Z";
      items.push_back({{"apiVersion", "v1"},
                       {"kind", "Event"},
                       {"metadata",
                        {{"name", object.name + "." + std::to_string(offset)},
                         {"namespace", object.namespace_name},
                         {"creationTimestamp", time}}},
                       {"involvedObject",
                        {{"apiVersion", object.api_version},
                         {"kind", object.kind},
                         {"name", object.name},
                         {"namespace", object.namespace_name},
                         {"uid", object.uid}}},
                       {"reason", reason},
                       {"message", std::string(record->text)},
                       {"source", {{"component", "trainyard"}}},
                       {"firstTimestamp", time},
                       {"lastTimestamp", time},
                       {"count", 1},
                       {"type", warning ? "Warning" : "Normal"}});
    }
  }
  return Json(json{{"apiVersion", "v1"},
                   {"kind", "EventList"},
                   {"metadata", {{"resourceVersion", std::to_string(CurrentRevision(context))}}},
                   {"items", std::move(items)}}
                  .dump());
}

}  // namespace trainyard::server::kube_internal
