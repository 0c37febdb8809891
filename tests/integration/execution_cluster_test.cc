// Distributed and accelerator jobs run for real: every replica of a master + 2 workers + 1
// parameter server + 1 evaluator job reports what trainyard gave it (trainer.report), and the
// parameter server, which never exits, is stopped when the master ends. A GPU job that can never
// fit fails at once; under accelerator emulation the same job runs.
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "integration/executing_server.h"

namespace trainyard::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// One replica of the cluster job, as the test expects it to have been started.
struct Replica {
  std::string report;     // the file trainer.report wrote: "<CLUSTER_SPEC type>-<index>.json"
  std::string task_name;  // its working directory and logs (control/job_layout.h)
  std::string tf_type;    // task.type in TF_CONFIG ("chief" for the master of runtime 2.11)
  std::string spec_type;  // task.type in CLUSTER_SPEC
  int index = 0;
  std::string rank;  // PyTorch RANK; "" when it gets none
};

const std::vector<Replica>& ClusterReplicas() {
  static const auto* const replicas = new std::vector<Replica>{
      {"master-0.json", "master-replica-0", "chief", "master", 0, "0"},
      {"worker-0.json", "worker-replica-0", "worker", "worker", 0, "1"},
      {"worker-1.json", "worker-replica-1", "worker", "worker", 1, "2"},
      {"ps-0.json", "ps-replica-0", "ps", "ps", 0, ""},
      {"evaluator-0.json", "evaluator-replica-0", "evaluator", "evaluator", 0, ""},
  };
  return *replicas;
}

nlohmann::json ClusterJob(std::string_view job_id, std::string_view package_uri) {
  nlohmann::json job = RuntimeJob(job_id, "trainer.report", package_uri);
  nlohmann::json& input = job["trainingInput"];
  input["scaleTier"] = "CUSTOM";
  for (const char* type : {"masterType", "workerType", "parameterServerType", "evaluatorType"}) {
    input[type] = "n1-standard-4";
  }
  input["workerCount"] = "2";
  input["parameterServerCount"] = "1";
  input["evaluatorCount"] = "1";
  return job;
}

nlohmann::json EnvJson(const nlohmann::json& report, const char* name) {
  const nlohmann::json& value = report["env"][name];
  return value.is_string() ? nlohmann::json::parse(value.get<std::string>(), nullptr, false)
                           : nlohmann::json();
}

std::string EnvText(const nlohmann::json& report, const char* name) {
  const nlohmann::json& value = report["env"][name];
  return value.is_string() ? value.get<std::string>() : "";
}

class ClusterTest : public ExecutionTest {};

TEST_F(ClusterTest, EveryReplicaSeesOneConsistentClusterAndTheParameterServerIsStopped) {
  server_.Submit(ClusterJob("dist_1", package_uri()));
  const nlohmann::json job = server_.WaitForState("dist_1");
  ASSERT_EQ(job["state"], "SUCCEEDED") << job.dump();

  std::vector<nlohmann::json> reports;
  for (const Replica& replica : ClusterReplicas()) {
    reports.push_back(ReadJson(JobDir("dist_1") / replica.report));
    ASSERT_TRUE(reports.back().is_object()) << replica.report << " missing";
  }
  // TF_CONFIG: chief, workers and parameter servers; never evaluators.
  const nlohmann::json cluster = EnvJson(reports[0], "TF_CONFIG")["cluster"];
  ASSERT_TRUE(cluster.is_object()) << reports[0].dump();
  EXPECT_EQ(cluster.size(), 3U) << cluster.dump();
  EXPECT_EQ(cluster["chief"].size(), 1U);
  EXPECT_EQ(cluster["worker"].size(), 2U);
  EXPECT_EQ(cluster["ps"].size(), 1U);
  // CLUSTER_SPEC: the same addresses with "master", plus the evaluator.
  const nlohmann::json spec_cluster = EnvJson(reports[0], "CLUSTER_SPEC")["cluster"];
  EXPECT_EQ(spec_cluster["master"], cluster["chief"]);
  EXPECT_EQ(spec_cluster["worker"], cluster["worker"]);
  EXPECT_EQ(spec_cluster["ps"], cluster["ps"]);
  ASSERT_EQ(spec_cluster["evaluator"].size(), 1U) << spec_cluster.dump();

  std::set<std::string> addresses;
  for (const auto& [role, members] : spec_cluster.items()) {
    for (const nlohmann::json& address : members) {
      EXPECT_THAT(address.get<std::string>(), StartsWith("127.0.0.1:")) << role;
      addresses.insert(address.get<std::string>());
    }
  }
  EXPECT_EQ(addresses.size(), 5U) << "ports are not distinct: " << spec_cluster.dump();

  const std::string master_port = EnvText(reports[0], "MASTER_PORT");
  EXPECT_FALSE(addresses.contains("127.0.0.1:" + master_port)) << master_port;
  const control::JobLayout layout = server_.Layout("dist_1");
  for (std::size_t i = 0; i < reports.size(); ++i) {
    const Replica& replica = ClusterReplicas()[i];
    SCOPED_TRACE(replica.task_name);
    const nlohmann::json& report = reports[i];
    const nlohmann::json tf_config = EnvJson(report, "TF_CONFIG");
    EXPECT_EQ(tf_config["cluster"], cluster);
    EXPECT_EQ(tf_config["task"],
              (nlohmann::json{{"type", replica.tf_type}, {"index", replica.index}}));
    EXPECT_EQ(tf_config["environment"], "cloud");
    EXPECT_EQ(tf_config["job"]["job_dir"], "gs://bkt/dist_1");
    const nlohmann::json spec = EnvJson(report, "CLUSTER_SPEC");
    EXPECT_EQ(spec["cluster"], spec_cluster);
    EXPECT_EQ(spec["task"],
              (nlohmann::json{{"type", replica.spec_type}, {"index", replica.index}}));
    EXPECT_EQ(EnvText(report, "CLOUD_ML_JOB_ID"), "dist_1");
    EXPECT_EQ(EnvText(report, "TRAINYARD_JOB_DIR_URI"), "gs://bkt/dist_1");
    EXPECT_EQ(EnvText(report, "STORAGE_EMULATOR_HOST"),
              "http://127.0.0.1:" + std::to_string(server_.port()));
    EXPECT_EQ(report["env"]["CUDA_VISIBLE_DEVICES"], "");
    if (replica.rank.empty()) {
      EXPECT_TRUE(report["env"]["RANK"].is_null()) << report.dump();
      EXPECT_TRUE(report["env"]["MASTER_ADDR"].is_null()) << report.dump();
    } else {
      EXPECT_EQ(EnvText(report, "RANK"), replica.rank);
      EXPECT_EQ(EnvText(report, "WORLD_SIZE"), "3");
      EXPECT_EQ(EnvText(report, "MASTER_ADDR"), "127.0.0.1");
      EXPECT_EQ(EnvText(report, "MASTER_PORT"), master_port);
    }
    std::error_code error;
    EXPECT_TRUE(std::filesystem::equivalent(report["cwd"].get<std::string>(),
                                            layout.working_dir(replica.task_name), error))
        << report["cwd"];
  }

  // The parameter server never exits on its own: the executor stopped it before writing
  // SUCCEEDED.
  EXPECT_FALSE(ProcessAlive(reports[3]["pid"].get<int>()));
  for (int pid : server_.ReplicaPids("dist_1")) {
    EXPECT_FALSE(ProcessAlive(pid)) << pid;
  }
}

// A machine with CPUs only, whatever this host has.
constexpr char kCpuOnlyCluster[] = R"(nodes:
  - name: box
    cpus: 8
    memory: 32Gi
)";

nlohmann::json GpuJob(std::string_view job_id, std::string_view package_uri) {
  nlohmann::json job = RuntimeJob(job_id, "trainer.report", package_uri);
  nlohmann::json& input = job["trainingInput"];
  input["scaleTier"] = "CUSTOM";
  input["masterType"] = "n1-standard-8";
  input["masterConfig"] = {{"acceleratorConfig", {{"count", "4"}, {"type", "NVIDIA_TESLA_T4"}}}};
  return job;
}

class NeverFitsTest : public ExecutionTest {
 protected:
  NeverFitsTest() : ExecutionTest(ExecutingServer::DefaultOptions(), kCpuOnlyCluster) {}
};

TEST_F(NeverFitsTest, GpuJobOnAMachineWithoutGpusFailsWithoutRunning) {
  server_.Submit(GpuJob("gpu_1", package_uri()));
  const nlohmann::json job = server_.WaitForState("gpu_1");
  ASSERT_EQ(job["state"], "FAILED") << job.dump();
  EXPECT_THAT(job.value("errorMessage", ""), HasSubstr("needs"));
  EXPECT_THAT(job.value("errorMessage", ""), HasSubstr("NVIDIA_TESLA_T4"));
  EXPECT_TRUE(job.contains("endTime")) << job.dump();
  // Nothing was staged nor started.
  EXPECT_FALSE(std::filesystem::exists(server_.Layout("gpu_1").staging_log()));
  EXPECT_TRUE(server_.ReplicaPids("gpu_1").empty());
}

class EmulatedAcceleratorsTest : public ExecutionTest {
 protected:
  static app::ServeOptions Emulating() {
    app::ServeOptions options = ExecutingServer::DefaultOptions();
    options.accelerator_emulation = 8;
    return options;
  }
  EmulatedAcceleratorsTest() : ExecutionTest(Emulating(), kCpuOnlyCluster) {}
};

TEST_F(EmulatedAcceleratorsTest, GpuJobRunsWithEmulatedDevices) {
  server_.Submit(GpuJob("gpu_1", package_uri()));
  const nlohmann::json job = server_.WaitForState("gpu_1");
  ASSERT_EQ(job["state"], "SUCCEEDED") << job.dump();
  const nlohmann::json report = ReadJson(JobDir("gpu_1") / "master-0.json");
  ASSERT_TRUE(report.is_object());
  EXPECT_EQ(report["env"]["CUDA_VISIBLE_DEVICES"], "");  // set, and empty
  EXPECT_EQ(report["env"]["TRAINYARD_EMULATED_ACCELERATORS"], "NVIDIA_TESLA_T4:4");
}

}  // namespace
}  // namespace trainyard::testing
