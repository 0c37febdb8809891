// core/v1 Events: what the service said about a TFJob's job (its service log: replicas started,
// restarts, the outcome, pull progress), as `kubectl describe tfjob` and `kubectl get events`
// read them. Pure.
#pragma once

#include <string>
#include <string_view>

#include "base/clock.h"

namespace trainyard::kube {

// The object an event is about (core/v1 ObjectReference).
struct InvolvedObject {
  std::string api_version;
  std::string kind;
  std::string name;
  std::string namespace_name;
  std::string uid;

  friend bool operator==(const InvolvedObject&, const InvolvedObject&) = default;
};

struct Event {
  std::string name;  // "<object>.<offset of the message in its log>"
  std::string namespace_name;
  InvolvedObject involved;
  std::string reason;  // "Started", "Restarting", … (EventOf)
  std::string message;
  std::string type;  // "Normal" or "Warning"
  WallTime time;     // firstTimestamp and lastTimestamp: each message is said once

  friend bool operator==(const Event&, const Event&) = default;
};

// The event a service message is: its reason and type from its words (first rule that matches;
// "Trainyard", Normal, when none does).
Event EventOf(std::string_view message, WallTime time, const InvolvedObject& involved,
              std::string name);

// A waiting job's reason (the queue's, issue #34) as the event Kueue gives a workload that waits:
// reason "Pending", Normal.
Event PendingEvent(std::string_view why, WallTime time, const InvolvedObject& involved,
                   std::string name);

// core/v1 Event JSON: metadata, involvedObject, reason, message, source {component trainyard},
// firstTimestamp, lastTimestamp, count 1, type.
std::string EncodeEvent(const Event& event);

}  // namespace trainyard::kube
