// A job's `scheduling` limits (maxWaitTime, maxRunningTime) and the service's closing messages.
// Pure: part of the reconcile rules (control/reconcile/), which do no IO.
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/clock.h"
#include "base/status.h"
#include "catalog/catalog.h"
#include "model/job.h"
#include "plan/replicas.h"
#include "sched/placement.h"
#include "sched/sharing.h"

namespace trainyard::control {

// The job's scheduling.maxWaitTime, if any; it counts from createTime while QUEUED or PREPARING.
std::optional<std::chrono::nanoseconds> MaxWaitTime(const model::Job& job);
std::string_view MaxWaitTimeMessage();
// Whether a job that has not started has waited longer than its maxWaitTime at `now`.
bool PastMaxWaitTime(const model::Job& job, WallTime now);

// The job's scheduling.maxRunningTime, if any; it counts from startTime.
std::optional<std::chrono::nanoseconds> MaxRunningTime(const model::Job& job);
std::string_view MaxRunningTimeMessage();
// Whether a job that started has run longer than its maxRunningTime at `now`.
bool PastMaxRunningTime(const model::Job& job, WallTime now);

std::string_view CancelledMessage();
// The service's closing message for a job that ends in `outcome`.
std::string OutcomeMessage(model::JobState outcome, std::string_view message);

// The placement demand of `job` (key "project/jobId", its priority (PriorityOf, with `sharing`'s
// priority classes) and age) running `shapes`, or the error that makes the job unrunnable.
Result<sched::JobDemand> JobDemandOf(const std::string& project, const model::Job& job,
                                     const std::vector<plan::ReplicaShape>& shapes,
                                     const catalog::Catalog& catalog,
                                     const sched::SharingPolicy* sharing = nullptr);

}  // namespace trainyard::control
