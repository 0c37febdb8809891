// Each project's recent use of the devices (issue #34), the fair-share order's memory
// (sched::ShareInput::usage): device-time in seconds of the whole inventory, halved every day.
// Kept across a restart (the executor writes it to the sharing store, store/sharing_store.h):
// these are the rules for counting it, for what a restarted server takes back, and for when it
// is worth writing. Pure: the caller reads the clock and does the IO.
#pragma once

#include <chrono>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/clock.h"
#include "sched/inventory.h"
#include "sched/placement.h"

namespace trainyard::sched {

inline constexpr std::chrono::hours kUsageHalfLife{24};

struct RecentUsage {
  // By project: seconds of the whole inventory (a project that held half the devices for an hour:
  // 1800), as of `counted`.
  std::map<std::string, double, std::less<>> seconds;
  std::optional<WallTime> counted;  // when it was last counted; nullopt: never
};

// `usage` decayed from `usage.counted` to `now` (unchanged when `now` is not later: a clock that
// went back decays nothing); `counted` becomes `now`.
void DecayUsage(RecentUsage& usage, WallTime now);

// Decays `usage` to `now`, then adds what each allocation of `running` held since it was last
// counted: its devices over the inventory's, times the seconds, to the project its key names
// (the part before the first '/'). The first count (never counted), and one after the clock went
// back, only start the clock.
// Returns whether any device-time was added.
bool CountUsage(RecentUsage& usage, const Inventory& inventory,
                const std::vector<Allocation>& running, WallTime now);

// What a server starting at `now` takes back from `saved` (as a previous server wrote it): decayed
// for the time since it was counted, which includes the time no server ran (a project that used
// the devices a day before the restart weighs half), and counted from `now` (that time is nobody's
// use). Projects whose use has decayed below `kForgotten` seconds are dropped.
RecentUsage RestoreUsage(const RecentUsage& saved, WallTime now);
inline constexpr double kForgotten = 1e-6;  // a microsecond: what the store keeps

// Whether the usage is due to be written: only when device-time was counted since the last
// write (`changed`; decay alone is not worth a write, RestoreUsage redoes it), and then at most
// once every `interval` after the last attempt (`last_attempt`, nullopt: none yet), so a write is
// not made on every pass and a failed one is tried again an interval later.
bool UsageWriteDue(bool changed, std::optional<WallTime> last_attempt, WallTime now,
                   std::chrono::seconds interval);

}  // namespace trainyard::sched
