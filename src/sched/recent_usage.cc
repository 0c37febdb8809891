#include "sched/recent_usage.h"

#include <cmath>

namespace trainyard::sched {
namespace {

double Seconds(WallTime from, WallTime to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

void DecayUsage(RecentUsage& usage, WallTime now) {
  if (usage.counted && now > *usage.counted) {
    const double half_life = std::chrono::duration<double>(kUsageHalfLife).count();
    const double decay = std::exp2(-Seconds(*usage.counted, now) / half_life);
    for (auto& [project, seconds] : usage.seconds) {
      seconds *= decay;
    }
  }
  usage.counted = now;
}

bool CountUsage(RecentUsage& usage, const Inventory& inventory,
                const std::vector<Allocation>& running, WallTime now) {
  const double elapsed = usage.counted ? Seconds(*usage.counted, now) : 0;
  DecayUsage(usage, now);
  double devices = 0;
  for (const Node& node : inventory.nodes) {
    devices += static_cast<double>(node.devices.size());
  }
  if (elapsed <= 0 || devices == 0) {
    return false;
  }
  bool added = false;
  for (const Allocation& allocation : running) {
    double held = 0;
    for (const ReplicaAssignment& replica : allocation.replicas) {
      held += static_cast<double>(replica.device_indices.size());
    }
    if (held > 0) {
      usage.seconds[allocation.key.substr(0, allocation.key.find('/'))] += held * elapsed / devices;
      added = true;
    }
  }
  return added;
}

RecentUsage RestoreUsage(const RecentUsage& saved, WallTime now) {
  RecentUsage restored = saved;
  if (!restored.counted) {
    restored.seconds.clear();  // a record without its time cannot be decayed: nothing is known
  }
  DecayUsage(restored, now);
  restored.counted = now;
  std::erase_if(restored.seconds, [](const auto& entry) {
    return !(entry.second >= kForgotten) || !std::isfinite(entry.second);
  });
  return restored;
}

bool UsageWriteDue(bool changed, std::optional<WallTime> last_attempt, WallTime now,
                   std::chrono::seconds interval) {
  return changed && (!last_attempt || now - *last_attempt >= interval || now < *last_attempt);
}

}  // namespace trainyard::sched
