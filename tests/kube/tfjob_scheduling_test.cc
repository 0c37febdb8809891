// schedulingPolicy.priorityClass admitted as Kubernetes's Priority admission plugin admits a
// pod's (kube/tfjob_scheduling.h); queue and minAvailable are rows of tfjob_validate_test.cc.
#include "kube/tfjob_scheduling.h"

#include <optional>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "kube/tfjob_fixtures.h"

namespace trainyard::kube {
namespace {

struct ClassCase {
  const char* name;
  std::optional<SchedulingPolicy> policy;
  const char* refused;  // the 403's message; nullptr: admitted
};

void PrintTo(const ClassCase& c, std::ostream* os) {
  *os << c.name;
}

class PriorityClassTest : public ::testing::TestWithParam<ClassCase> {};

TEST_P(PriorityClassTest, AdmitsOnlyAClassTheAdminKnows) {
  TFJob job = testing::ValidTFJob();
  job.run_policy.scheduling_policy = GetParam().policy;
  const std::map<std::string, int, std::less<>> classes = {{"high", 1000}, {"low", 1}};
  const std::optional<KubeError> refused = PriorityClassRefusal(job, classes);
  if (GetParam().refused == nullptr) {
    EXPECT_FALSE(refused.has_value()) << refused->message;
    return;
  }
  ASSERT_TRUE(refused.has_value());
  EXPECT_EQ(refused->code, 403);
  EXPECT_EQ(refused->reason, "Forbidden");
  EXPECT_EQ(refused->message, GetParam().refused);
  EXPECT_EQ(refused->name, "mnist");
}

INSTANTIATE_TEST_SUITE_P(
    Rules, PriorityClassTest,
    ::testing::Values(
        ClassCase{"NoSchedulingPolicy", std::nullopt, nullptr},
        ClassCase{"NoClass", SchedulingPolicy{.queue = "team-a"}, nullptr},
        ClassCase{"KnownClass", SchedulingPolicy{.priority_class = "high"}, nullptr},
        ClassCase{"UnknownClass", SchedulingPolicy{.priority_class = "urgent"},
                  "tfjobs.kubeflow.org \"mnist\" is forbidden: no PriorityClass with name urgent "
                  "was found"},
        // Names are exact, as Kubernetes object names are.
        ClassCase{"OtherCase", SchedulingPolicy{.priority_class = "High"},
                  "tfjobs.kubeflow.org \"mnist\" is forbidden: no PriorityClass with name High "
                  "was found"}),
    [](const auto& row) { return std::string(row.param.name); });

TEST(PriorityClassTest, NoTableRefusesEveryClass) {
  TFJob job = testing::ValidTFJob();
  job.run_policy.scheduling_policy = SchedulingPolicy{.priority_class = "high"};
  EXPECT_TRUE(PriorityClassRefusal(job, {}).has_value());
}

TEST(TotalReplicasTest, CountsEveryRole) {
  EXPECT_EQ(TotalReplicas(testing::ValidTFJob()), 4);  // Chief 1, Worker 2, PS 1
}

}  // namespace
}  // namespace trainyard::kube
