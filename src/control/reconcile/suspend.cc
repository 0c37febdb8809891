#include "control/reconcile/suspend.h"

#include <string>

#include <fmt/format.h>

namespace trainyard::control {

Result<std::optional<model::Job>> SuspendChange(const model::Job& current, bool suspend) {
  const std::string_view verb = suspend ? "suspended" : "resumed";
  if (model::IsTerminal(current.state) || current.state == model::JobState::kCancelling) {
    return Status::FailedPrecondition(
        fmt::format("Job {} is {}: only a job that has not ended can be {}.", current.job_id,
                    model::JobStateName(current.state), verb));
  }
  if (current.training_input.has_value() && current.training_input->hyperparameters.has_value()) {
    return Status::FailedPrecondition(fmt::format(
        "Job {} is a hyperparameter tuning job, which cannot be {}: cancel it, and submit a "
        "job with resumePreviousJobId to go on with its study.",
        current.job_id, verb));
  }
  const bool now = model::IsSuspended(current);
  if (now == suspend) {
    return std::optional<model::Job>();
  }
  model::Job next = current;
  if (!next.extras.has_value()) {
    next.extras.emplace();
  }
  next.extras->suspended = suspend;
  next.extras->resumed = next.extras->resumed || !suspend;
  return std::optional<model::Job>(std::move(next));
}

}  // namespace trainyard::control
