// What BuildClusterPlan gives a job with extras (model/job_extras.h): Kubeflow's TF_CONFIG and
// peer names (docs/reference/kubeflow-tfjob.md §4), the roles' env and working directories.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "plan/cluster_plan.h"
#include "plan/kubeflow_config.h"
#include "plan/plan_test_jobs.h"

namespace trainyard::plan {
namespace {

using testing::EnvNames;
using testing::EnvOf;
using testing::Plan;

// A container job (CUSTOM, n1-standard-4) that is the TFJob `name` in `ns`, primary `primary`.
model::Job KubeflowJob(int workers, int ps, int evaluators, std::string primary,
                       std::string name = "mnist", std::string ns = "team-a") {
  model::Job job = testing::CustomJob(workers, ps, evaluators);
  job.training_input->master_config =
      model::ReplicaConfig{.image_uri = "registry.local/trainer:1.0", .container_command = {"t"}};
  job.extras.emplace();
  job.extras->kubeflow = model::KubeflowNaming{
      .job_name = std::move(name), .namespace_name = std::move(ns), .primary_type = primary};
  return job;
}

// Every replica on its own host, all on port 2222, as pods are.
std::vector<ReplicaPlacement> PodPlacements(std::size_t count) {
  std::vector<ReplicaPlacement> placements(count);
  for (std::size_t i = 0; i < count; ++i) {
    placements[i].host = "10.0.0." + std::to_string(i + 1);
    placements[i].port = 2222;
  }
  return placements;
}

TEST(KubeflowPlan, ChiefEvaluatorPsAndWorkersGetTheOperatorsExactTfConfig) {
  // Engine order: master (chief), worker 0, worker 1, ps 0, evaluator 0.
  const Result<std::vector<ReplicaLaunch>> launches =
      Plan(KubeflowJob(2, 1, 1, "chief"), PodPlacements(5));
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  const std::string cluster =
      R"({"cluster":{"chief":["mnist-chief-0.team-a.svc:2222"],)"
      R"("evaluator":["mnist-evaluator-0.team-a.svc:2222"],"ps":["mnist-ps-0.team-a.svc:2222"],)"
      R"("worker":["mnist-worker-0.team-a.svc:2222","mnist-worker-1.team-a.svc:2222"]},)";
  const std::vector<std::string> tasks = {
      R"("task":{"type":"chief","index":0},"environment":"cloud"})",
      R"("task":{"type":"worker","index":0},"environment":"cloud"})",
      R"("task":{"type":"worker","index":1},"environment":"cloud"})",
      R"("task":{"type":"ps","index":0},"environment":"cloud"})",
      R"("task":{"type":"evaluator","index":0},"environment":"cloud"})"};
  ASSERT_EQ(launches->size(), tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    EXPECT_EQ(EnvOf(launches->at(i), "TF_CONFIG"), cluster + tasks[i]) << i;
    EXPECT_FALSE(EnvOf(launches->at(i), "CLUSTER_SPEC").has_value());
  }
  // The example of docs/reference/kubeflow-tfjob.md §4.2: the second worker.
  EXPECT_EQ(
      EnvOf(launches->at(2), "TF_CONFIG"),
      R"({"cluster":{"chief":["mnist-chief-0.team-a.svc:2222"],"evaluator":["mnist-evaluator-0.team-a.svc:2222"],"ps":["mnist-ps-0.team-a.svc:2222"],"worker":["mnist-worker-0.team-a.svc:2222","mnist-worker-1.team-a.svc:2222"]},"task":{"type":"worker","index":1},"environment":"cloud"})");
}

TEST(KubeflowPlan, WithoutAChiefTheMasterIsWorkerZeroAndTheWorkersFollowIt) {
  // The seed's TFJob: PS × 1 and Worker × 4, so the engine runs a master and 3 workers.
  const Result<std::vector<ReplicaLaunch>> launches =
      Plan(KubeflowJob(3, 1, 0, "worker", "tf-benchmarks", "default"), PodPlacements(5));
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  const std::string cluster =
      R"({"cluster":{"ps":["tf-benchmarks-ps-0.default.svc:2222"],"worker":[)"
      R"("tf-benchmarks-worker-0.default.svc:2222","tf-benchmarks-worker-1.default.svc:2222",)"
      R"("tf-benchmarks-worker-2.default.svc:2222","tf-benchmarks-worker-3.default.svc:2222"]},)";
  const std::vector<std::pair<std::string, int>> tasks = {
      {"worker", 0}, {"worker", 1}, {"worker", 2}, {"worker", 3}, {"ps", 0}};
  ASSERT_EQ(launches->size(), tasks.size());
  for (std::size_t i = 0; i < tasks.size(); ++i) {
    EXPECT_EQ(EnvOf(launches->at(i), "TF_CONFIG"),
              cluster + R"("task":{"type":")" + tasks[i].first + R"(","index":)" +
                  std::to_string(tasks[i].second) + R"(},"environment":"cloud"})")
        << launches->at(i).task_name;
  }
}

TEST(KubeflowPlan, PortsAreTheReplicasOwnAndEveryNameResolvesToItsPeersHost) {
  const Result<std::vector<ReplicaLaunch>> launches = Plan(KubeflowJob(1, 1, 0, "master"));
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  EXPECT_EQ(
      EnvOf(launches->at(0), "TF_CONFIG"),
      R"({"cluster":{"master":["mnist-master-0.team-a.svc:2222"],"ps":["mnist-ps-0.team-a.svc:2224"],"worker":["mnist-worker-0.team-a.svc:2223"]},"task":{"type":"master","index":0},"environment":"cloud"})");
  const std::vector<std::pair<std::string, std::string>> hosts = {
      {"mnist-master-0.team-a.svc", "127.0.0.1"}, {"mnist-master-0", "127.0.0.1"},
      {"mnist-worker-0.team-a.svc", "127.0.0.1"}, {"mnist-worker-0", "127.0.0.1"},
      {"mnist-ps-0.team-a.svc", "127.0.0.1"},     {"mnist-ps-0", "127.0.0.1"}};
  for (const ReplicaLaunch& launch : *launches) {
    ASSERT_TRUE(launch.container.has_value());
    EXPECT_EQ(launch.container->hosts, hosts) << launch.task_name;
  }
}

TEST(KubeflowPlan, ASingleReplicaGetsNoTfConfig) {
  const Result<std::vector<ReplicaLaunch>> launches = Plan(KubeflowJob(0, 0, 0, "worker"));
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  ASSERT_EQ(launches->size(), 1U);
  EXPECT_FALSE(EnvOf(launches->at(0), "TF_CONFIG").has_value());
  EXPECT_FALSE(EnvOf(launches->at(0), "CLUSTER_SPEC").has_value());
  EXPECT_EQ(EnvOf(launches->at(0), "CLOUD_ML_JOB_ID"), "custom_job");
}

TEST(KubeflowPlan, ReplicasOnTheHostAreNamedByTheirAddresses) {
  PlanContext context = testing::Context();
  context.containers_on_host = true;
  const Result<std::vector<ReplicaLaunch>> launches =
      Plan(KubeflowJob(1, 0, 0, "chief"), {}, context);
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  EXPECT_EQ(
      EnvOf(launches->at(1), "TF_CONFIG"),
      R"({"cluster":{"chief":["127.0.0.1:2222"],"worker":["127.0.0.1:2223"]},"task":{"type":"worker","index":0},"environment":"cloud"})");
  EXPECT_TRUE(launches->at(1).container->hosts.empty());
}

TEST(KubeflowPlan, RuntimeJobsAreProcessesSoTheirPeersAreNamedByAddress) {
  model::Job job = KubeflowJob(1, 0, 0, "chief");
  job.training_input->master_config.reset();
  const Result<std::vector<ReplicaLaunch>> launches = Plan(job);
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  EXPECT_EQ(
      EnvOf(launches->at(0), "TF_CONFIG"),
      R"({"cluster":{"chief":["127.0.0.1:2222"],"worker":["127.0.0.1:2223"]},"task":{"type":"chief","index":0},"environment":"cloud"})");
}

TEST(KubeflowPlan, APeerKnownByAHostNameKeepsItAndGetsNoHostsLine) {
  std::vector<ReplicaPlacement> placements = PodPlacements(2);
  placements[1].host = "node-b";
  const Result<std::vector<ReplicaLaunch>> launches =
      Plan(KubeflowJob(1, 0, 0, "chief"), placements);
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  EXPECT_EQ(
      EnvOf(launches->at(0), "TF_CONFIG"),
      R"({"cluster":{"chief":["mnist-chief-0.team-a.svc:2222"],"worker":["node-b:2222"]},"task":{"type":"chief","index":0},"environment":"cloud"})");
  EXPECT_EQ(launches->at(0).container->hosts,
            (std::vector<std::pair<std::string, std::string>>{
                {"mnist-chief-0.team-a.svc", "10.0.0.1"}, {"mnist-chief-0", "10.0.0.1"}}));
}

TEST(RoleExtrasPlan, RoleEnvFollowsTrainyardsAndOverridesItInOnePlace) {
  model::Job job = testing::CustomJob(1, 0, 0);
  job.extras.emplace();
  job.extras->worker.env = {{"A", "1"}, {"PYTHONUNBUFFERED", "0"}, {"B", "2"}, {"A", "3"}};
  const Result<std::vector<ReplicaLaunch>> launches = Plan(job);
  ASSERT_TRUE(launches.ok()) << launches.status().ToString();
  const ReplicaLaunch& master = launches->at(0);
  EXPECT_FALSE(EnvOf(master, "A").has_value()) << "another role's env";
  EXPECT_EQ(EnvNames(master).back(), "TRAINYARD_JOB_DIR_URI");
  const ReplicaLaunch& worker = launches->at(1);
  std::vector<std::string> names = EnvNames(worker);
  ASSERT_GE(names.size(), 3U);
  EXPECT_EQ(std::vector<std::string>(names.end() - 3, names.end()),
            (std::vector<std::string>{"PYTHONUNBUFFERED", "B", "A"}));
  EXPECT_EQ(std::count(names.begin(), names.end(), "PYTHONUNBUFFERED"), 1);
  EXPECT_EQ(std::count(names.begin(), names.end(), "A"), 1);
  EXPECT_EQ(EnvOf(worker, "PYTHONUNBUFFERED"), "0");
  EXPECT_EQ(EnvOf(worker, "A"), "3");
  // The AI Platform variables are still there: extras without kubeflow change no naming.
  EXPECT_TRUE(EnvOf(worker, "CLUSTER_SPEC").has_value());
}

TEST(RoleExtrasPlan, WorkingDirIsTheContainersOrTheProcesss) {
  model::Job job = KubeflowJob(1, 0, 0, "chief");
  job.extras->master.working_dir = "/home/benchmarks";
  const Result<std::vector<ReplicaLaunch>> containers = Plan(job);
  ASSERT_TRUE(containers.ok()) << containers.status().ToString();
  EXPECT_EQ(containers->at(0).container->working_dir, "/home/benchmarks");
  EXPECT_EQ(containers->at(0).working_dir, "");
  EXPECT_EQ(containers->at(1).container->working_dir, "") << "the worker sets none";

  job.training_input->master_config.reset();
  const Result<std::vector<ReplicaLaunch>> processes = Plan(job);
  ASSERT_TRUE(processes.ok()) << processes.status().ToString();
  EXPECT_EQ(processes->at(0).working_dir, "/home/benchmarks");
  EXPECT_EQ(processes->at(1).working_dir, "");
}

struct TaskCase {
  std::string primary;
  Role role;
  int index;
  KubeflowTask want;
};

class KubeflowTaskTest : public ::testing::TestWithParam<TaskCase> {};

TEST_P(KubeflowTaskTest, MapsTheEnginesReplicaToTheTfJobs) {
  const TaskCase& c = GetParam();
  const model::KubeflowNaming naming{
      .job_name = "j", .namespace_name = "ns", .primary_type = c.primary};
  EXPECT_EQ(KubeflowTaskOf(naming, c.role, c.index), c.want);
}

INSTANTIATE_TEST_SUITE_P(Table, KubeflowTaskTest,
                         ::testing::Values(TaskCase{"chief", Role::kMaster, 0, {"chief", 0}},
                                           TaskCase{"master", Role::kMaster, 0, {"master", 0}},
                                           TaskCase{"worker", Role::kMaster, 0, {"worker", 0}},
                                           TaskCase{"chief", Role::kWorker, 2, {"worker", 2}},
                                           TaskCase{"worker", Role::kWorker, 2, {"worker", 3}},
                                           TaskCase{"worker", Role::kParameterServer, 1, {"ps", 1}},
                                           TaskCase{
                                               "chief", Role::kEvaluator, 0, {"evaluator", 0}}));

TEST(KubeflowNames, ServiceAndDnsNames) {
  const model::KubeflowNaming naming{
      .job_name = "mnist", .namespace_name = "team-a", .primary_type = "chief"};
  EXPECT_EQ(KubeflowServiceName(naming, {"ps", 1}), "mnist-ps-1");
  EXPECT_EQ(KubeflowDnsName(naming, {"ps", 1}), "mnist-ps-1.team-a.svc");
}

TEST(IsAddressLiteral, TellsAddressesFromNames) {
  for (const char* address : {"127.0.0.1", "10.0.0.255", "::1", "fe80::1", "::ffff:10.0.0.1"}) {
    EXPECT_TRUE(IsAddressLiteral(address)) << address;
  }
  for (const char* name : {"", "node-b", "localhost", "10.0.0", "10.0.0.256", "1.2.3.4.5",
                           "10..0.1", "c0ffee", "node:b"}) {
    EXPECT_FALSE(IsAddressLiteral(name)) << name;
  }
}

}  // namespace
}  // namespace trainyard::plan
