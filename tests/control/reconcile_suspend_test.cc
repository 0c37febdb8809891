// Suspending and resuming through trainyard's verb (control/reconcile/suspend.h): one row per
// state and rule, the stored job in, the change (or its refusal) out.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "control/reconcile/suspend.h"
#include "control/reconcile_jobs.h"
#include "support/sample_jobs.h"

namespace trainyard::control {
namespace {

using model::JobState;
using testing::Suspended;
using testing::WithState;

struct SuspendCase {
  std::string name;
  model::Job job;
  bool suspend = true;
  // The flag after the change; nullopt: no change. Ignored when `refused` is set.
  std::optional<bool> now;
  std::string refused;  // a part of the FAILED_PRECONDITION message; "" when accepted
};

std::vector<SuspendCase> SuspendCases() {
  const model::Job job = trainyard::testing::ValidRuntimeJob("j");
  model::Job study = job;
  study.training_input->hyperparameters.emplace();
  return {
      {"queued, suspended", WithState(job, JobState::kQueued), true, true, ""},
      {"preparing, suspended", WithState(job, JobState::kPreparing), true, true, ""},
      {"running, suspended", WithState(job, JobState::kRunning), true, true, ""},
      {"suspended again: no change", Suspended(WithState(job, JobState::kQueued)), true,
       std::nullopt, ""},
      {"suspended, resumed", Suspended(WithState(job, JobState::kQueued)), false, false, ""},
      {"resumed when not suspended: no change", WithState(job, JobState::kRunning), false,
       std::nullopt, ""},
      {"succeeded: refused, naming the state",
       WithState(job, JobState::kSucceeded),
       true,
       {},
       "Job j is SUCCEEDED: only a job that has not ended can be suspended."},
      {"failed: refused", WithState(job, JobState::kFailed), true, {}, "is FAILED"},
      {"cancelled: refused", WithState(job, JobState::kCancelled), true, {}, "is CANCELLED"},
      {"cancelling: refused", WithState(job, JobState::kCancelling), true, {}, "is CANCELLING"},
      {"ended, resumed: refused",
       Suspended(WithState(job, JobState::kCancelled)),
       false,
       {},
       "can be resumed"},
      {"a tuning job: refused",
       WithState(study, JobState::kRunning),
       true,
       {},
       "hyperparameter tuning job"},
  };
}

void PrintTo(const SuspendCase& c, std::ostream* os) {
  *os << c.name;
}

class SuspendTest : public ::testing::TestWithParam<SuspendCase> {};

TEST_P(SuspendTest, SetsTheFlagOrSaysWhyNot) {
  const SuspendCase& c = GetParam();
  Result<std::optional<model::Job>> change = SuspendChange(c.job, c.suspend);
  if (!c.refused.empty()) {
    ASSERT_FALSE(change.ok());
    EXPECT_EQ(change.status().code(), Code::kFailedPrecondition);
    EXPECT_NE(change.status().message().find(c.refused), std::string::npos)
        << change.status().message();
    return;
  }
  ASSERT_TRUE(change.ok()) << change.status().message();
  ASSERT_EQ(change->has_value(), c.now.has_value());
  if (c.now.has_value()) {
    const model::Job& next = **change;
    ASSERT_TRUE(next.extras.has_value());
    EXPECT_EQ(next.extras->suspended, *c.now);
    EXPECT_EQ(next.state, c.job.state);  // the executor moves it, not the verb
  }
}

INSTANTIATE_TEST_SUITE_P(Rules, SuspendTest, ::testing::ValuesIn(SuspendCases()),
                         [](const auto& row) {
                           std::string name;
                           for (const char c : row.param.name) {
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           }
                           return name;
                         });

}  // namespace
}  // namespace trainyard::control
