// A job's placement priority (control/reconcile/priority.h), one row per rule, and that the
// queue's demand carries it (JobDemandOf).
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "catalog/catalog.h"
#include "control/reconcile/job_limits.h"
#include "control/reconcile/priority.h"
#include "control/reconcile_jobs.h"
#include "support/sample_jobs.h"

namespace trainyard::control {
namespace {

using testing::WithPriority;

model::Job WithClass(model::Job job, std::string name) {
  job.extras.emplace().priority_class = std::move(name);
  return job;
}

const sched::SharingPolicy kPolicy{.projects = {},
                                   .priority_classes = {{"high", 1000}, {"low", -5}}};

struct PriorityCase {
  std::string name;
  model::Job job;
  const sched::SharingPolicy* sharing = nullptr;
  int priority = 0;
};

std::vector<PriorityCase> PriorityCases() {
  const model::Job job = trainyard::testing::ValidRuntimeJob("j");
  return {
      {"no scheduling, no class: 0", job, &kPolicy, 0},
      {"ml v1 scheduling.priority", WithPriority(job, 7), &kPolicy, 7},
      {"ml v1 priority without a policy", WithPriority(job, 7), nullptr, 7},
      {"a class: the admin's number", WithClass(job, "high"), &kPolicy, 1000},
      {"a class may be negative", WithClass(job, "low"), &kPolicy, -5},
      {"a class the table lacks: 0", WithClass(job, "gone"), &kPolicy, 0},
      {"a class without a policy: 0", WithClass(job, "high"), nullptr, 0},
      {"the class wins over scheduling.priority", WithClass(WithPriority(job, 7), "high"), &kPolicy,
       1000},
      {"extras without a class: scheduling.priority",
       [&] {
         model::Job suspended = WithPriority(job, 3);
         suspended.extras.emplace().suspended = true;
         return suspended;
       }(),
       &kPolicy, 3},
  };
}

void PrintTo(const PriorityCase& c, std::ostream* os) {
  *os << c.name;
}

class PriorityTest : public ::testing::TestWithParam<PriorityCase> {};

TEST_P(PriorityTest, IsTheClassNumberOrTheMlV1Priority) {
  EXPECT_EQ(PriorityOf(GetParam().job, GetParam().sharing), GetParam().priority);
}

INSTANTIATE_TEST_SUITE_P(Rules, PriorityTest, ::testing::ValuesIn(PriorityCases()),
                         [](const auto& row) {
                           std::string name;
                           for (const char c : row.param.name) {
                             name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           }
                           return name;
                         });

TEST(PriorityTest, TheQueueDemandCarriesIt) {
  const catalog::Catalog& catalog = catalog::Catalog::Builtin();
  const model::Job job = WithClass(trainyard::testing::ValidRuntimeJob("j"), "high");
  Result<sched::JobDemand> demand = JobDemandOf("p", job, {}, catalog, &kPolicy);
  ASSERT_TRUE(demand.ok()) << demand.status().message();
  EXPECT_EQ(demand->priority, 1000);
  Result<sched::JobDemand> without = JobDemandOf("p", job, {}, catalog);
  ASSERT_TRUE(without.ok());
  EXPECT_EQ(without->priority, 0);
}

}  // namespace
}  // namespace trainyard::control
