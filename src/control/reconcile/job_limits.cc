#include "control/reconcile/job_limits.h"

#include "control/reconcile/priority.h"

namespace trainyard::control {
namespace {

constexpr std::string_view kCancelledMessage = "Job was cancelled by the user.";
constexpr std::string_view kMaxRunningTimeMessage = "Job cancelled: exceeded maxRunningTime.";
constexpr std::string_view kMaxWaitTimeMessage = "Job cancelled: exceeded maxWaitTime.";

// One of the job's scheduling limits, if it has one.
std::optional<std::chrono::nanoseconds> Limit(const model::Job& job,
                                              std::optional<Duration> model::Scheduling::*limit) {
  if (job.training_input && job.training_input->scheduling) {
    return (*job.training_input->scheduling).*limit;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::chrono::nanoseconds> MaxWaitTime(const model::Job& job) {
  return Limit(job, &model::Scheduling::max_wait_time);
}

std::string_view MaxWaitTimeMessage() {
  return kMaxWaitTimeMessage;
}

bool PastMaxWaitTime(const model::Job& job, WallTime now) {
  const std::optional<std::chrono::nanoseconds> limit = MaxWaitTime(job);
  return limit && job.create_time && now - *job.create_time > *limit;
}

std::optional<std::chrono::nanoseconds> MaxRunningTime(const model::Job& job) {
  return Limit(job, &model::Scheduling::max_running_time);
}

std::string_view MaxRunningTimeMessage() {
  return kMaxRunningTimeMessage;
}

bool PastMaxRunningTime(const model::Job& job, WallTime now) {
  const std::optional<std::chrono::nanoseconds> limit = MaxRunningTime(job);
  return limit && job.start_time && now - *job.start_time > *limit;
}

std::string_view CancelledMessage() {
  return kCancelledMessage;
}

std::string OutcomeMessage(model::JobState outcome, std::string_view message) {
  switch (outcome) {
    case model::JobState::kSucceeded:
      return "Job completed successfully.";
    case model::JobState::kCancelled:
      return message.empty() ? "Job was cancelled." : std::string(message);
    default:
      return message.empty() ? "Job failed." : "Job failed. " + std::string(message);
  }
}

Result<sched::JobDemand> JobDemandOf(const std::string& project, const model::Job& job,
                                     const std::vector<plan::ReplicaShape>& shapes,
                                     const catalog::Catalog& catalog,
                                     const sched::SharingPolicy* sharing) {
  sched::JobDemand demand;
  demand.key = project + "/" + job.job_id;
  demand.priority = PriorityOf(job, sharing);
  demand.sequence = job.create_time ? job.create_time->time_since_epoch().count() : 0;
  for (const plan::ReplicaShape& shape : shapes) {
    Result<sched::ReplicaDemand> replica = sched::DemandOf(
        shape.task_name, shape.machine_type, shape.accelerator, shape.accelerator_count, catalog);
    if (!replica.ok()) {
      return replica.status();
    }
    // A TFJob's nodeSelector: the nodes its role may be placed on.
    if (job.extras.has_value()) {
      replica->node_selector = plan::RoleExtrasOf(*job.extras, shape.role).node_selector;
    }
    demand.replicas.push_back(std::move(*replica));
  }
  return demand;
}

}  // namespace trainyard::control
