#include "kube/tables.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace trainyard::kube {
namespace {

using nlohmann::ordered_json;

struct Column {
  std::string_view name;
  std::string_view type;
  std::string_view format;
  std::string_view description;
  int priority;
};

constexpr Column kTFJobColumns[] = {
    {"Name", "string", "name",
     "Name must be unique within a namespace. Is required when creating resources.", 0},
    {"State", "string", "", "The type of the TFJob's last condition.", 0},
    {"Age", "date", "",
     "CreationTimestamp is a timestamp representing the server time when this object was "
     "created.",
     0},
    {"Replicas", "string", "", "The replicas of each type.", 1},
    {"Job", "string", "", "The trainyard job the TFJob runs as.", 1},
};

constexpr Column kPodColumns[] = {
    {"Name", "string", "name",
     "Name must be unique within a namespace. Is required when creating resources.", 0},
    {"Ready", "string", "", "The number of ready containers over the containers.", 0},
    {"Status", "string", "", "The reason of the container's state, else the pod's phase.", 0},
    {"Restarts", "string", "", "The number of times the container has been restarted.", 0},
    {"Age", "string", "",
     "CreationTimestamp is a timestamp representing the server time when this object was "
     "created.",
     0},
    {"Node", "string", "", "The node the pod runs on.", 1},
};

constexpr Column kEventColumns[] = {
    {"Last Seen", "string", "",
     "The time at which the most recent occurrence of this event was recorded.", 0},
    {"Type", "string", "", "Type of this event (Normal, Warning).", 0},
    {"Reason", "string", "", "The reason for the transition into the object's current status.", 0},
    {"Object", "string", "", "The object that this event is about.", 0},
    {"Subobject", "string", "", "The part of the object the event is about, if any.", 1},
    {"Source", "string", "", "The component reporting this event.", 1},
    {"Message", "string", "", "A human-readable description of the status of this operation.", 0},
    {"First Seen", "string", "", "The time at which the event was first recorded.", 1},
    {"Count", "string", "", "The number of times this event has occurred.", 1},
    {"Name", "string", "name",
     "Name must be unique within a namespace. Is required when creating resources.", 1},
};

template <std::size_t N>
ordered_json Columns(const Column (&columns)[N]) {
  ordered_json out = ordered_json::array();
  for (const Column& column : columns) {
    out.push_back({{"name", column.name},
                   {"type", column.type},
                   {"format", column.format},
                   {"description", column.description},
                   {"priority", column.priority}});
  }
  return out;
}

ordered_json PartialObjectMetadata(const ObjectMeta& meta) {
  ordered_json metadata = {{"name", meta.name}};
  if (!meta.namespace_name.empty()) {
    metadata["namespace"] = meta.namespace_name;
  }
  if (!meta.uid.empty()) {
    metadata["uid"] = meta.uid;
  }
  if (!meta.resource_version.empty()) {
    metadata["resourceVersion"] = meta.resource_version;
  }
  if (meta.generation > 0) {
    metadata["generation"] = meta.generation;
  }
  if (meta.creation_timestamp.has_value()) {
    metadata["creationTimestamp"] = FormatTimestamp(*meta.creation_timestamp);
  }
  if (!meta.labels.empty()) {
    metadata["labels"] = meta.labels;
  }
  if (!meta.annotations.empty()) {
    metadata["annotations"] = meta.annotations;
  }
  return {{"kind", "PartialObjectMetadata"},
          {"apiVersion", "meta.k8s.io/v1"},
          {"metadata", std::move(metadata)}};
}

std::string Table(ordered_json columns, ordered_json rows, std::int64_t resource_version) {
  const ordered_json table = {{"kind", "Table"},
                              {"apiVersion", "meta.k8s.io/v1"},
                              {"metadata", {{"resourceVersion", std::to_string(resource_version)}}},
                              {"columnDefinitions", std::move(columns)},
                              {"rows", std::move(rows)}};
  return table.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace

std::string TFJobTable(const std::vector<TFJobRow>& rows, std::int64_t resource_version,
                       bool include_object) {
  ordered_json out = ordered_json::array();
  for (const TFJobRow& row : rows) {
    ordered_json item = {
        {"cells",
         {row.metadata.name, row.state, HumanDuration(row.age), row.replicas, row.job_id}}};
    if (include_object) {
      item["object"] = PartialObjectMetadata(row.metadata);
    }
    out.push_back(std::move(item));
  }
  return Table(Columns(kTFJobColumns), std::move(out), resource_version);
}

std::string PodTable(const std::vector<PodRow>& rows, std::int64_t resource_version,
                     bool include_object) {
  ordered_json out = ordered_json::array();
  for (const PodRow& row : rows) {
    const Pod& pod = row.pod;
    ordered_json item = {{"cells",
                          {pod.name, pod.ready ? "1/1" : "0/1", PodStatusText(pod),
                           std::to_string(pod.restart_count), HumanDuration(row.age),
                           pod.node_name.empty() ? "<none>" : pod.node_name}}};
    if (include_object) {
      ObjectMeta meta{.name = pod.name,
                      .namespace_name = pod.namespace_name,
                      .labels = StringMap(pod.labels.begin(), pod.labels.end()),
                      .creation_timestamp = pod.creation_timestamp};
      item["object"] = PartialObjectMetadata(meta);
    }
    out.push_back(std::move(item));
  }
  return Table(Columns(kPodColumns), std::move(out), resource_version);
}

std::string EventTable(const std::vector<EventRow>& rows, std::int64_t resource_version,
                       bool include_object) {
  ordered_json out = ordered_json::array();
  for (const EventRow& row : rows) {
    const Event& event = row.event;
    std::string kind = event.involved.kind;
    std::ranges::transform(kind, kind.begin(), [](unsigned char c) { return std::tolower(c); });
    const std::string seen = HumanDuration(row.age);
    // Each message is an event said once: first and last seen are the same, the count 1.
    ordered_json item = {{"cells",
                          {seen, event.type, event.reason, kind + "/" + event.involved.name, "",
                           "trainyard", event.message, seen, 1, event.name}}};
    if (include_object) {
      item["object"] = PartialObjectMetadata(ObjectMeta{.name = event.name,
                                                        .namespace_name = event.namespace_name,
                                                        .creation_timestamp = event.time});
    }
    out.push_back(std::move(item));
  }
  return Table(Columns(kEventColumns), std::move(out), resource_version);
}

std::string ReplicasText(const std::vector<TypeCount>& counts) {
  std::string text;
  for (const TypeCount& count : counts) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", count.replicas, count.type);
  }
  return text;
}

std::string PodStatusText(const Pod& pod) {
  return pod.reason.empty() ? pod.phase : pod.reason;
}

std::string HumanDuration(Duration duration) {
  using std::chrono::duration_cast;
  const std::int64_t seconds = duration_cast<std::chrono::seconds>(duration).count();
  // apimachinery tolerates a second of clock skew before calling an age invalid.
  if (seconds < -1) {
    return "<invalid>";
  }
  if (seconds < 0) {
    return "0s";
  }
  if (seconds < std::int64_t{60} * 2) {
    return fmt::format("{}s", seconds);
  }
  const std::int64_t minutes = seconds / 60;
  if (minutes < 10) {
    return seconds % 60 == 0 ? fmt::format("{}m", minutes)
                             : fmt::format("{}m{}s", minutes, seconds % 60);
  }
  if (minutes < std::int64_t{60} * 3) {
    return fmt::format("{}m", minutes);
  }
  const std::int64_t hours = minutes / 60;
  if (hours < 8) {
    return minutes % 60 == 0 ? fmt::format("{}h", hours)
                             : fmt::format("{}h{}m", hours, minutes % 60);
  }
  if (hours < 48) {
    return fmt::format("{}h", hours);
  }
  if (hours < std::int64_t{24} * 8) {
    return hours % 24 == 0 ? fmt::format("{}d", hours / 24)
                           : fmt::format("{}d{}h", hours / 24, hours % 24);
  }
  if (hours < std::int64_t{24} * 365 * 2) {
    return fmt::format("{}d", hours / 24);
  }
  if (hours < std::int64_t{24} * 365 * 8) {
    const std::int64_t days = (hours / 24) % 365;
    return days == 0 ? fmt::format("{}y", hours / 24 / 365)
                     : fmt::format("{}y{}d", hours / 24 / 365, days);
  }
  return fmt::format("{}y", hours / 24 / 365);
}

}  // namespace trainyard::kube
