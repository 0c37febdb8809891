#include "control/reconcile/manager_end.h"

#include <fmt/format.h>

#include "control/reconcile/job_limits.h"

namespace trainyard::control {

ManagerEndOutcome DecideManagerEnd(const ManagerJobEnd& end) {
  if (end.known && end.state == "TIMEOUT" && end.has_max_running_time) {
    return {.state = model::JobState::kCancelled,
            .message = std::string(MaxRunningTimeMessage()),
            .cancelling_first = true};
  }
  if (end.known && end.state == "CANCELLED") {
    return {.state = model::JobState::kCancelled,
            .message = fmt::format("The {} job {} was cancelled outside trainyard.", end.manager,
                                   end.batch_id)};
  }
  std::string message =
      !end.known
          ? fmt::format("{} no longer knows job {}", end.manager, end.batch_id)
          : fmt::format("The {} job {} ended {}{}", end.manager, end.batch_id, end.state,
                        end.reason.empty() || end.reason == "None" ? std::string()
                                                                   : " (" + end.reason + ")");
  message += fmt::format(" before its replica{} {} ended.", end.missing.size() == 1 ? "" : "s",
                         fmt::join(end.missing, ", "));
  return {.state = model::JobState::kFailed, .message = std::move(message)};
}

}  // namespace trainyard::control
