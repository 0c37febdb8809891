// A pod watch's events: pods are derived from their TFJob's job and replicas (tfjob_status.h), so
// they change without a stored revision of their own; a watch compares what it last sent with
// what is now and says the difference, as the API server's watch would have. Pure.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kube/tfjob_status.h"

namespace trainyard::kube {

struct PodChange {
  std::string type;  // "ADDED", "MODIFIED" or "DELETED"
  Pod pod;           // as it is now; as it was last sent when DELETED

  friend bool operator==(const PodChange&, const PodChange&) = default;
};

// Pods keyed by "<namespace>/<name>". What changed from `before` to `after`: new keys ADDED,
// keys whose pod differs MODIFIED, keys gone DELETED; in key order, deletions last.
std::vector<PodChange> PodChanges(const std::map<std::string, Pod>& before,
                                  const std::map<std::string, Pod>& after);

}  // namespace trainyard::kube
