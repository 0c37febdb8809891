#include <chrono>

#include <fmt/format.h>

#include "base/time_format.h"
#include "validate/rules.h"

namespace trainyard::validate {
namespace {

constexpr Duration kMinWaitTime = std::chrono::seconds(1800);
constexpr std::int32_t kMaxPriority = 1000;

}  // namespace

void CheckScheduling(const JobContext& job, Violations& out) {
  if (!job.input.scheduling) {
    return;
  }
  const model::Scheduling& scheduling = *job.input.scheduling;
  const FieldPath path = job.path.Child("scheduling");
  // docs/reference/ai-platform-training.md §2.3: maxRunningTime must leave the job some time to
  // run.
  if (scheduling.max_running_time && *scheduling.max_running_time <= Duration::zero()) {
    out.Add(path.Child("maxRunningTime"),
            fmt::format("must be positive; got {}", FormatDuration(*scheduling.max_running_time)));
  }
  // docs/reference/ai-platform-training.md §2.3/§2.8 #13: maxWaitTime is at least 1800s.
  if (scheduling.max_wait_time && *scheduling.max_wait_time < kMinWaitTime) {
    out.Add(path.Child("maxWaitTime"),
            fmt::format("must be at least {}; got {}", FormatDuration(kMinWaitTime),
                        FormatDuration(*scheduling.max_wait_time)));
  }
  // docs/reference/ai-platform-training.md §2.3/§2.8 #13: priority is 0..1000.
  if (scheduling.priority < 0 || scheduling.priority > kMaxPriority) {
    out.Add(path.Child("priority"),
            fmt::format("must be between 0 and {}; got {}", kMaxPriority, scheduling.priority));
  }
}

}  // namespace trainyard::validate
