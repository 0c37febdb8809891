// Stored jobs for the reconcile rules' tables (tests/control/reconcile_*_test.cc): a fixed epoch
// and the few fields the rules read, set one at a time.
#pragma once

#include <chrono>
#include <cstdint>
#include <utility>

#include "base/clock.h"
#include "model/job.h"

namespace trainyard::control::testing {

inline const WallTime kEpoch = WallTime(std::chrono::hours(24 * 365 * 56));

inline model::Job WithState(model::Job job, model::JobState state) {
  job.state = state;
  return job;
}

inline model::Job WithPriority(model::Job job, int priority) {
  job.training_input->scheduling.emplace().priority = priority;
  return job;
}

inline model::Job WithPosition(model::Job job, std::int64_t position) {
  job.job_position = position;
  return job;
}

inline model::Job Suspended(model::Job job) {
  job.extras.emplace().suspended = true;
  return job;
}

inline model::Job WaitingAtMost(model::Job job, std::chrono::seconds limit) {
  job.training_input->scheduling.emplace().max_wait_time = limit;
  return job;
}

inline model::Job RunningAtMost(model::Job job, std::chrono::seconds limit) {
  job.training_input->scheduling.emplace().max_running_time = limit;
  return job;
}

}  // namespace trainyard::control::testing
