#include "kube/events.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "base/time_format.h"

namespace trainyard::kube {
namespace {

using nlohmann::ordered_json;

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

}  // namespace

Event EventOf(std::string_view message, WallTime time, const InvolvedObject& involved,
              std::string name) {
  std::string lower(message);
  std::ranges::transform(lower, lower.begin(), [](unsigned char c) { return std::tolower(c); });
  std::string_view reason = "Trainyard";
  bool warning = false;
  for (const ReasonRule& rule : kReasons) {
    if (lower.find(rule.words) != std::string::npos) {
      reason = rule.reason;
      warning = rule.warning;
      break;
    }
  }
  return Event{.name = std::move(name),
               .namespace_name = involved.namespace_name,
               .involved = involved,
               .reason = std::string(reason),
               .message = std::string(message),
               .type = warning ? "Warning" : "Normal",
               .time = time};
}

Event PendingEvent(std::string_view why, WallTime time, const InvolvedObject& involved,
                   std::string name) {
  return Event{.name = std::move(name),
               .namespace_name = involved.namespace_name,
               .involved = involved,
               .reason = "Pending",
               .message = std::string(why),
               .type = "Normal",
               .time = time};
}

std::string EncodeEvent(const Event& event) {
  const std::string time = FormatTimestamp(event.time);
  const ordered_json out = {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata",
       {{"name", event.name}, {"namespace", event.namespace_name}, {"creationTimestamp", time}}},
      {"involvedObject",
       {{"apiVersion", event.involved.api_version},
        {"kind", event.involved.kind},
        {"name", event.involved.name},
        {"namespace", event.involved.namespace_name},
        {"uid", event.involved.uid}}},
      {"reason", event.reason},
      {"message", event.message},
      {"source", {{"component", "trainyard"}}},
      {"firstTimestamp", time},
      {"lastTimestamp", time},
      {"count", 1},
      {"type", event.type}};
  return out.dump(-1, ' ', false, ordered_json::error_handler_t::replace);
}

}  // namespace trainyard::kube
