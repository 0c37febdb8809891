// Refusal at create (issue #34): which of a job's needs exceed its project's quota, and the
// words each API refuses it with.
#include "sched/quota_check.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sched/inventory_builders.h"
#include "sched/test_catalog.h"

namespace trainyard::sched {
namespace {

ProjectQuota Quota() {
  return {.project = "p",
          .accelerators = {{kT4, 4}, {kV100, 0}},
          .cpus = 64,
          .memory_mib = 256 * 1024,
          .jobs = 20};
}

JobDemand JobOf(std::vector<ReplicaDemand> replicas) {
  return {.key = "p/j", .priority = 0, .sequence = 0, .replicas = std::move(replicas)};
}

ReplicaDemand R(int cpus, std::int64_t memory_gib, std::string accelerator = "", int count = 0) {
  return {.task_name = "master-replica-0",
          .machine_type = "n1-standard-4",
          .cpus = cpus,
          .memory_mib = memory_gib * 1024,
          .accelerator = std::move(accelerator),
          .accelerator_count = count};
}

struct QuotaCase {
  std::string name;
  ProjectQuota quota;
  std::vector<ReplicaDemand> replicas;
  std::vector<std::string> metrics;  // of the excesses, in order
};

TEST(QuotaCheckTest, EachResourceBeyondTheQuotaIsAnExcessAndWithinIsNone) {
  ProjectQuota no_jobs = Quota();
  no_jobs.jobs = 0;
  const std::vector<QuotaCase> cases = {
      {"fits exactly", Quota(), {R(32, 128, kT4, 2), R(32, 128, kT4, 2)}, {}},
      {"T4s summed over replicas",
       Quota(),
       {R(4, 15, kT4, 4), R(4, 15, kT4, 1)},
       {"custom_model_training_nvidia_t4_gpus"}},
      {"a type the quota allows none of",
       Quota(),
       {R(4, 15, kV100, 1)},
       {"custom_model_training_nvidia_v100_gpus"}},
      {"a type the quota does not name is unlimited", Quota(), {R(4, 15, "NVIDIA_L4", 8)}, {}},
      {"vCPUs", Quota(), {R(60, 10), R(8, 10)}, {"custom_model_training_cpus"}},
      {"memory", Quota(), {R(8, 200), R(8, 57)}, {"custom_model_training_memory_mib"}},
      {"jobs 0 allows no job", no_jobs, {R(1, 1)}, {"custom_model_training_concurrent_jobs"}},
      {"every excess, accelerators first",
       Quota(),
       {R(100, 300, kT4, 8)},
       {"custom_model_training_nvidia_t4_gpus", "custom_model_training_cpus",
        "custom_model_training_memory_mib"}},
      {"no limits", ProjectQuota{.project = "p"}, {R(1000, 9000, kT4, 64)}, {}},
  };
  for (const QuotaCase& c : cases) {
    std::vector<std::string> metrics;
    for (const QuotaExcess& excess : QuotaExcesses(&c.quota, JobOf(c.replicas))) {
      metrics.push_back(excess.metric);
    }
    EXPECT_EQ(metrics, c.metrics) << c.name;
  }
  EXPECT_TRUE(QuotaExcesses(nullptr, JobOf({R(1000, 9000, kT4, 64)})).empty());
}

TEST(QuotaCheckTest, TheExcessCarriesTheNumbers) {
  const ProjectQuota quota = Quota();
  const std::vector<QuotaExcess> excesses = QuotaExcesses(&quota, JobOf({R(4, 15, kT4, 8)}));
  ASSERT_EQ(excesses.size(), 1U);
  EXPECT_EQ(excesses[0].requested, 8);
  EXPECT_EQ(excesses[0].limit, 4);
  EXPECT_EQ(excesses[0].what, kT4);
}

TEST(QuotaCheckTest, MetricsAreVertexNames) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"NVIDIA_TESLA_T4", "custom_model_training_nvidia_t4_gpus"},
      {"NVIDIA_TESLA_P100", "custom_model_training_nvidia_p100_gpus"},
      {"NVIDIA_A100_80GB", "custom_model_training_nvidia_a100_80gb_gpus"},
      {"NVIDIA_L4", "custom_model_training_nvidia_l4_gpus"},
      {"TPU_V3", "custom_model_training_tpu_v3_cores"},
  };
  for (const auto& [name, metric] : cases) {
    EXPECT_EQ(AcceleratorQuotaMetric(name), metric) << name;
  }
}

TEST(QuotaCheckTest, RefusalsAreWordedAsGoogleAndKubernetesWordThem) {
  const ProjectQuota quota = Quota();
  const std::vector<QuotaExcess> excesses = QuotaExcesses(&quota, JobOf({R(96, 10, kT4, 8)}));
  const Status status = QuotaRefusal("p", excesses);
  EXPECT_EQ(status.code(), Code::kResourceExhausted);
  EXPECT_EQ(status.message().find("The following quota metrics exceed quota limits: "
                                  "aiplatform.googleapis.com/custom_model_training_nvidia_t4_gpus, "
                                  "aiplatform.googleapis.com/custom_model_training_cpus."),
            0U)
      << status.message();
  EXPECT_NE(status.message().find("needs 8 NVIDIA_TESLA_T4 at once and project p's quota is 4"),
            std::string::npos)
      << status.message();
  ASSERT_EQ(status.violations().size(), 2U);
  EXPECT_EQ(status.violations()[0].field, "project:p");
  EXPECT_EQ(KubeQuotaMessage("p", excesses),
            "exceeded quota: p, requested: "
            "requests.custom_model_training_nvidia_t4_gpus=8,requests.cpu=96, limited: "
            "requests.custom_model_training_nvidia_t4_gpus=4,requests.cpu=64");
  const ProjectQuota memory{.project = "p", .memory_mib = 1024};
  EXPECT_EQ(
      KubeQuotaMessage("p", QuotaExcesses(&memory, JobOf({R(1, 2)}))),
      "exceeded quota: p, requested: requests.memory=2048Mi, limited: requests.memory=1024Mi");
}

TEST(QuotaCheckTest, UseCountsEachProjectsDevicesByTypeAndItsJobsOnce) {
  Inventory inventory;
  inventory.nodes = {builders::MakeNode("n1", 32, 128 * builders::kGib, {{kT4, 2}, {kV100, 1}})};
  const std::vector<Allocation> running = {
      {.key = "p/a",
       .replicas = {{.task_name = "m",
                     .node = 0,
                     .device_indices = {0, 2},
                     .cpus = 8,
                     .memory_mib = 1024}}},
      {.key = "p/study/trial-1",
       .replicas = {{.task_name = "m", .node = 0, .device_indices = {1}, .cpus = 4}}},
      {.key = "p/study/trial-2", .replicas = {{.task_name = "m", .node = 0, .cpus = 4}}},
      {.key = "q/b", .replicas = {{.task_name = "m", .node = 5, .device_indices = {0}, .cpus = 2}}},
  };
  const auto use = UseByProject(inventory, running);
  ASSERT_EQ(use.size(), 2U);
  EXPECT_EQ(
      use.at("p"),
      (Amounts{.devices = {{kT4, 2}, {kV100, 1}}, .cpus = 16, .memory_mib = 1024, .jobs = 2}));
  EXPECT_EQ(use.at("q"), (Amounts{.cpus = 2, .jobs = 1}));
}

}  // namespace
}  // namespace trainyard::sched
