// Jobs run for real on the Slurm test cluster (bench/peers/slurm/start.sh: 4 emulated nodes on
// loopback, fake GPU GRES), through `trainyard serve --backend slurm`: each job becomes one
// heterogeneous Slurm job whose tasks run `trainyard batch-task`. The replicas of a master + 2
// workers + 1 parameter server job land on distinct nodes, get one consistent cluster and reach
// each other over TCP; workers asking for a GPU get CUDA_VISIBLE_DEVICES from their GRES; a
// failing worker fails the job with its message; cancel and a server restart work as locally.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "integration/executing_server.h"
#include "run/command.h"
#include "support/build_paths.h"
#include "support/slurm_cluster.h"

namespace trainyard::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kSlurmConfig[] = R"(partition: debug
gres_types:
  NVIDIA_TESLA_T4: fake
finished_jobs: jobcomp
ports: {first: 30000, count: 2000}
)";

app::ServeOptions SlurmOptions() {
  app::ServeOptions options = ExecutingServer::DefaultOptions();
  options.backend = "slurm";
  options.stop_jobs_on_exit = false;  // Slurm jobs outlive a stopped server (the restart test)
  static const std::string config = [] {
    const std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("ty-slurm-config-" + std::to_string(getpid()));
    std::ofstream(path) << kSlurmConfig;
    return path.string();
  }();
  options.slurm_config = config;
  return options;
}

// A master + 2 workers (each with one T4, the GRES type "fake") + 1 parameter server, all
// n1-standard-4 (4 CPUs, 15 GB: one per emulated node), running `module`.
nlohmann::json MeshJob(std::string_view job_id, std::string_view module,
                       std::string_view package_uri) {
  nlohmann::json job = RuntimeJob(job_id, module, package_uri);
  nlohmann::json& input = job["trainingInput"];
  input["scaleTier"] = "CUSTOM";
  for (const char* type : {"masterType", "workerType", "parameterServerType"}) {
    input[type] = "n1-standard-4";
  }
  input["workerCount"] = "2";
  input["parameterServerCount"] = "1";
  input["workerConfig"] = {{"acceleratorConfig", {{"count", "1"}, {"type", "NVIDIA_TESLA_T4"}}}};
  return job;
}

// Whether Slurm still lists a job named `name` as not finished.
bool SlurmStillRuns(std::string_view name) {
  Result<run::CommandResult> queue =
      run::RunCommand({"squeue", "-h", "-o", "%j %T"}, "", std::chrono::seconds(30));
  return !queue.ok() || queue->out.find(std::string(name) + " ") != std::string::npos;
}

class SlurmExecutionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const SlurmClusterCheck cluster = CheckSlurmCluster(testing::SlurmStateDir());
    if (!cluster.available()) {
      if (cluster.required) {
        FAIL() << cluster.why;
      }
      GTEST_SKIP() << cluster.why;
    }
    setenv("SLURM_CONF", cluster.slurm_conf.c_str(), 1);  // NOLINT(concurrency-mt-unsafe)
    server_ = std::make_unique<ExecutingServer>(SlurmOptions());
    server_->CreateBucket("bkt");
    const Sdist sdist = BuildTrainerSdist();
    ASSERT_FALSE(sdist.bytes.empty());
    package_uri_ = "gs://bkt/packages/" + sdist.file_name;
    server_->Upload("bkt", "packages/" + sdist.file_name, sdist.bytes);
  }

  std::filesystem::path JobDir(std::string_view job_id) const {
    return server_->GcsPath("bkt", job_id);
  }

  // The job's files as a failure message: its service log and every task's log, exit and
  // started file, and the batch step's output.
  std::string Files(std::string_view job_id) const {
    std::string text;
    const control::JobLayout layout = server_->Layout(job_id);
    for (const std::filesystem::path dir : {layout.logs_dir(), layout.root() + "/run"}) {
      std::error_code error;
      for (const auto& entry : std::filesystem::directory_iterator(dir, error)) {
        text += "\n== " + entry.path().string() + "\n" + ReadFile(entry.path()).value_or("");
      }
    }
    return text;
  }

  std::unique_ptr<ExecutingServer> server_;
  std::string package_uri_;
};

TEST_F(SlurmExecutionTest, ReplicasSpreadOverNodesShareOneClusterAndReachEachOther) {
  server_->Submit(MeshJob("mesh_1", "trainer.mesh", package_uri_));
  const nlohmann::json job = server_->WaitForState("mesh_1");
  ASSERT_EQ(job["state"], "SUCCEEDED") << job.dump() << Files("mesh_1");

  std::set<std::string> nodes;
  nlohmann::json cluster;
  for (const char* report_name : {"master-0.json", "worker-0.json", "worker-1.json", "ps-0.json"}) {
    SCOPED_TRACE(report_name);
    const nlohmann::json report = ReadJson(JobDir("mesh_1") / report_name);
    ASSERT_TRUE(report.is_object()) << report_name << " missing";
    for (const auto& [peer, ok] : report["reached"].items()) {
      EXPECT_TRUE(ok.get<bool>()) << "could not reach " << peer;
    }
    EXPECT_EQ(report["reached"].size(), 3U) << report.dump();
    const nlohmann::json tf_config =
        nlohmann::json::parse(report["env"]["TF_CONFIG"].get<std::string>());
    if (cluster.is_null()) {
      cluster = tf_config["cluster"];
    }
    EXPECT_EQ(tf_config["cluster"], cluster) << "every replica sees the same cluster";
    nodes.insert(report["env"]["SLURMD_NODENAME"].get<std::string>());
    const std::string devices = report["env"]["CUDA_VISIBLE_DEVICES"].get<std::string>();
    if (std::string_view(report_name).starts_with("worker")) {
      EXPECT_FALSE(devices.empty()) << "a worker's GRES GPU";
    } else {
      EXPECT_EQ(devices, "") << "no GPU asked for";
    }
  }
  EXPECT_EQ(nodes.size(), 4U) << "each replica on its own node";
  EXPECT_EQ(cluster["chief"].size(), 1U) << cluster.dump();
  EXPECT_EQ(cluster["worker"].size(), 2U) << cluster.dump();
  EXPECT_EQ(cluster["ps"].size(), 1U) << cluster.dump();

  // The replicas' output is in the job's logs, under their task names, as locally.
  const std::vector<nlohmann::json> entries =
      ListLogEntries(server_->client(), "mesh_1", "labels.task_name=\"ps-replica-0\"");
  std::string text;
  for (const nlohmann::json& entry : entries) {
    text += entry.value("textPayload", "") + "\n";
  }
  EXPECT_THAT(text, HasSubstr("ps 0 listening on")) << text;
  EXPECT_THAT(text, HasSubstr("reached 3 of 3 peers")) << text;
  // The parameter server, which never ends on its own, was stopped with the Slurm job.
  EXPECT_TRUE(Eventually([] { return !SlurmStillRuns("ty-proj-mesh_1"); }));
}

TEST_F(SlurmExecutionTest, AFailingWorkerFailsTheJobWithItsMessage) {
  nlohmann::json job = RuntimeJob("fail_1", "trainer.fail", package_uri_);
  job["trainingInput"]["scaleTier"] = "CUSTOM";
  job["trainingInput"]["masterType"] = "n1-standard-4";
  job["trainingInput"]["workerType"] = "n1-standard-4";
  job["trainingInput"]["workerCount"] = "1";
  server_->Submit(job);
  const nlohmann::json failed = server_->WaitForState("fail_1");
  ASSERT_EQ(failed["state"], "FAILED") << failed.dump() << Files("fail_1");
  EXPECT_THAT(failed["errorMessage"].get<std::string>(),
              HasSubstr("exited with a non-zero status of 1"));
  EXPECT_THAT(failed["errorMessage"].get<std::string>(), HasSubstr("ValueError: boom"));
  EXPECT_TRUE(Eventually([] { return !SlurmStillRuns("ty-proj-fail_1"); }));
}

TEST_F(SlurmExecutionTest, CancelStopsTheSlurmJob) {
  server_->Submit(RuntimeJob("cancel_1", "trainer.sleeper", package_uri_));
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(JobDir("cancel_1") / "pids.json"); }))
      << server_->GetJob("cancel_1").dump();
  EXPECT_EQ(server_->WaitForState("cancel_1", {"RUNNING"})["state"], "RUNNING");
  ASSERT_EQ(server_->Cancel("cancel_1").status, 200);
  const nlohmann::json job = server_->WaitForState("cancel_1");
  EXPECT_EQ(job["state"], "CANCELLED") << job.dump();
  EXPECT_TRUE(Eventually([] { return !SlurmStillRuns("ty-proj-cancel_1"); }));
  const nlohmann::json pids = ReadJson(JobDir("cancel_1") / "pids.json");
  EXPECT_FALSE(ProcessAlive(pids["trainer"].get<int>()));
  EXPECT_FALSE(ProcessAlive(pids["grandchild"].get<int>()));
}

TEST_F(SlurmExecutionTest, ARestartedServerTakesOverItsSlurmJobs) {
  nlohmann::json job = RuntimeJob("restart_1", "trainer.sleeper", package_uri_);
  job["trainingInput"]["args"] = {"--on-sigterm", "release"};
  server_->Submit(job);
  ASSERT_TRUE(
      Eventually([&] { return std::filesystem::exists(JobDir("restart_1") / "pids.json"); }));
  server_->Stop();  // leaves the Slurm job running
  ASSERT_TRUE(SlurmStillRuns("ty-proj-restart_1"));
  server_->Restart();
  EXPECT_EQ(server_->WaitForState("restart_1", {"RUNNING"})["state"], "RUNNING");
  // A cancel through the new server reaches the job Slurm still runs; the trainer ends cleanly.
  ASSERT_EQ(server_->Cancel("restart_1").status, 200);
  ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(JobDir("restart_1") / "sigterm"); }));
  std::ofstream(JobDir("restart_1") / "release").put('\n');
  const nlohmann::json cancelled = server_->WaitForState("restart_1");
  EXPECT_EQ(cancelled["state"], "CANCELLED") << cancelled.dump();
  EXPECT_TRUE(Eventually([] { return !SlurmStillRuns("ty-proj-restart_1"); }));
}

// Issue #16: container replicas inside the Slurm tasks, from the offline base image
// (scripts/base_image.sh; the CTest fixture container_images builds it).
TEST_F(SlurmExecutionTest, ContainerReplicasRunInsideTheSlurmTasks) {
  constexpr std::string_view kBaseImage = "localhost/trainyard/debian-python:bookworm";
  Result<run::CommandResult> exists = run::RunCommand(
      {"podman", "image", "exists", std::string(kBaseImage)}, "", std::chrono::seconds(30));
  if (!exists.ok() || !exists->status.Succeeded()) {
    const char* required = std::getenv("TRAINYARD_REQUIRE_CONTAINERS");  // NOLINT
    if (required != nullptr && std::string_view(required) == "1") {
      FAIL() << "no podman or no " << kBaseImage << ": run scripts/base_image.sh";
    }
    GTEST_SKIP() << "no podman or no " << kBaseImage;
  }
  nlohmann::json job = {{"jobId", "image_1"}, {"trainingInput", {}}};
  nlohmann::json& input = job["trainingInput"];
  input = {{"scaleTier", "CUSTOM"},
           {"region", "us-central1"},
           {"masterType", "n1-standard-4"},
           {"workerType", "n1-standard-4"},
           {"workerCount", "1"},
           {"parameterServerType", "n1-standard-4"},
           {"parameterServerCount", "1"}};
  // Each replica prints, then the replicas meet (the others listen at their TF_CONFIG ports until
  // the master has connected): the master's exit ends the job, and must not cut a peer's output.
  constexpr std::string_view kScript = R"(import json, os, socket, time
c = json.loads(os.environ['TF_CONFIG'])
t = c['task']
print('task', t['type'], t['index'], 'in container', os.path.exists('/run/.containerenv'), flush=True)
port = lambda a: int(a.rsplit(':', 1)[1])
host = lambda a: a.rsplit(':', 1)[0]
if t['type'] in ('chief', 'master'):
    for kind, addresses in c['cluster'].items():
        for a in addresses if kind not in ('chief', 'master') else []:
            deadline = time.time() + 120
            while True:
                try:
                    socket.create_connection((host(a), port(a)), 5).close()
                    break
                except OSError:
                    if time.time() > deadline:
                        raise
                    time.sleep(0.2)
else:
    s = socket.create_server(('', port(c['cluster'][t['type']][t['index']])))
    s.settimeout(120)
    s.accept()
)";
  input["masterConfig"] = {{"imageUri", kBaseImage},
                           {"containerCommand", {"python3", "-c", std::string(kScript)}}};
  server_->Submit(job);
  const nlohmann::json done = server_->WaitForState("image_1");
  ASSERT_EQ(done["state"], "SUCCEEDED") << done.dump() << Files("image_1");
  const control::JobLayout layout = server_->Layout("image_1");
  for (const auto& [task, line] : {std::pair{"master-replica-0", "task master 0 in container True"},
                                   std::pair{"worker-replica-0", "task worker 0 in container True"},
                                   std::pair{"ps-replica-0", "task ps 0 in container True"}}) {
    EXPECT_THAT(ReadFile(layout.log_path(task)).value_or(""), HasSubstr(line))
        << task << Files("image_1");
  }
  EXPECT_THAT(ReadFile(layout.service_log()).value_or(""), HasSubstr("Submitted to Slurm"));
}

}  // namespace
}  // namespace trainyard::testing
