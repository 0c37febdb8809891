// The service's messages about a TFJob (its job's service.log: replicas started, restarts, the
// outcome, pull progress) as core/v1 Events (kube/events.h), which `kubectl describe tfjob` lists
// and `kubectl get events` prints as a table; and while a TFJob waits in the queue, why (issue
// #34: its project's quota, a reservation, room), as a "Pending" event of the read's time.
#include "kube/events.h"

#include <chrono>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "api/kube/internal.h"
#include "api/kube/objects.h"
#include "api/kube/selectors.h"
#include "base/time_format.h"
#include "control/job_layout.h"
#include "kube/tables.h"
#include "logs/log_record.h"
#include "os/file.h"

namespace trainyard::server::kube_internal {

using nlohmann::json;

HttpResponse ListEvents(const Context& context, const Request& request) {
  Result<Selector> fields = SelectorOf(request, "fieldSelector", false);
  if (!fields.ok()) {
    return Error(kube::BadRequest(fields.status().message()));
  }
  Result<std::vector<store::RevisionedJob>> jobs = context.store.ListKubeObjects(
      request.namespace_name, kTFJobKind, 0, /*live_only=*/true, kMaxListed);
  if (!jobs.ok()) {
    return Error(kube::InternalError(jobs.status().message()));
  }
  // Why each of the namespace's TFJobs waits, as the last queue pass left it.
  std::map<std::string, std::string, std::less<>> waiting;
  if (context.options.queue) {
    for (control::QueuedInfo& queued : context.options.queue()) {
      if (queued.project == request.namespace_name && !queued.reason.empty()) {
        waiting.emplace(std::move(queued.job_id), std::move(queued.reason));
      }
    }
  }
  const WallTime now = std::chrono::floor<std::chrono::seconds>(context.clock.Now());
  std::vector<kube::Event> events;
  for (const store::RevisionedJob& job : *jobs) {
    const model::KubeObject& object = *job.job.extras->kube;
    const kube::InvolvedObject involved{.api_version = object.api_version,
                                        .kind = object.kind,
                                        .name = object.name,
                                        .namespace_name = object.namespace_name,
                                        .uid = object.uid};
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
    if (!fields->Matches(field)) {
      continue;
    }
    if (const auto reason = waiting.find(job.job.job_id); reason != waiting.end()) {
      events.push_back(kube::PendingEvent(reason->second, now, involved, object.name + ".pending"));
    }
    if (context.options.data_dir.empty()) {
      continue;
    }
    const std::string path =
        control::JobLayout(context.options.data_dir, job.project, job.job.job_id).service_log();
    const std::optional<std::string> log = os::ReadFileText(path);
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
      const std::optional<WallTime> time = ParseTimestamp(record->timestamp);
      if (!time.has_value()) {
        continue;
      }
      // A metav1.Time has whole seconds.
      events.push_back(kube::EventOf(record->text, std::chrono::floor<std::chrono::seconds>(*time),
                                     involved, object.name + "." + std::to_string(offset)));
    }
  }
  const std::int64_t revision = CurrentRevision(context);
  if (request.WantsTable()) {
    std::vector<kube::EventRow> rows;
    for (kube::Event& event : events) {
      const Duration age = std::chrono::duration_cast<Duration>(context.clock.Now() - event.time);
      rows.push_back(kube::EventRow{.event = std::move(event), .age = age});
    }
    return Json(kube::EventTable(rows, revision));
  }
  json items = json::array();
  for (const kube::Event& event : events) {
    items.push_back(json::parse(kube::EncodeEvent(event)));
  }
  return Json(json{{"apiVersion", "v1"},
                   {"kind", "EventList"},
                   {"metadata", {{"resourceVersion", std::to_string(revision)}}},
                   {"items", std::move(items)}}
                  .dump());
}

}  // namespace trainyard::server::kube_internal
