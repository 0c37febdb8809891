// trainyard v1's cluster view (api/trainyard/cluster.h) with real jobs: a running GPU job
// holds an emulated device, a job that needs more than is free waits in the queue with its
// position and reason (which `trainyard jobs describe` prints too), each project's quota, use,
// borrowed and share, and the job's replicas say where they run, and once it ended, how.
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cli/commands/commands.h"
#include "cli/commands/environment.h"
#include "integration/executing_server.h"

namespace trainyard::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kOneNode[] = R"(nodes:
  - name: box
    cpus: 8
    memory: 32Gi
)";

// A job whose master sleeps on the host (`--containers host`) holding `gpus` T4s.
nlohmann::json SleepingGpuJob(std::string_view job_id, int gpus) {
  return {{"jobId", job_id},
          {"trainingInput",
           {{"region", "us-central1"},
            {"scaleTier", "CUSTOM"},
            {"masterType", "n1-standard-8"},
            {"masterConfig",
             {{"imageUri", "sleeper/local"},
              {"containerCommand", {"sleep", "600"}},
              {"acceleratorConfig",
               {{"count", std::to_string(gpus)}, {"type", "NVIDIA_TESLA_T4"}}}}}}}};
}

class ClusterViewTest : public ExecutionTest {
 protected:
  static app::ServeOptions TwoEmulatedDevices() {
    app::ServeOptions options = ExecutingServer::DefaultOptions();
    options.accelerator_emulation = 2;
    options.containers = "host";
    return options;
  }
  ClusterViewTest() : ExecutionTest(TwoEmulatedDevices(), kOneNode) {}

  nlohmann::json Cluster(std::string_view project = "proj") {
    const ClientResponse response =
        server_.client().Get("/trainyard/v1/projects/" + std::string(project) + "/cluster");
    EXPECT_EQ(response.status, 200) << response.body;
    return nlohmann::json::parse(response.body, nullptr, false);
  }

  // `trainyard jobs describe JOB` against the server: what it wrote on stderr.
  std::string DescribeErr(const std::string& job_id) {
    std::ostringstream out;
    std::ostringstream err;
    const int rc = cli::Run({"jobs", "describe", job_id}, out, err,
                            {.server = fmt::format("http://127.0.0.1:{}/", server_.port()),
                             .project = "proj",
                             .region = "us-central1"});
    EXPECT_EQ(rc, 0) << err.str();
    EXPECT_THAT(out.str(), HasSubstr("jobId: " + job_id + "\n"));
    return err.str();
  }
};

// The devices of `cluster` that `job_id` holds.
int HeldBy(const nlohmann::json& cluster, std::string_view job_id) {
  int held = 0;
  for (const nlohmann::json& node : cluster["nodes"]) {
    for (const nlohmann::json& device : node["devices"]) {
      held += device["heldBy"].is_object() && device["heldBy"].value("jobId", "") == job_id;
    }
  }
  return held;
}

TEST_F(ClusterViewTest, ShowsWhoHoldsEachDeviceAndWhyQueuedJobsWait) {
  server_.Submit(SleepingGpuJob("holder", 1));
  server_.WaitForState("holder", {"RUNNING"});
  server_.Submit(SleepingGpuJob("waiter", 2));  // one T4 of two is free

  nlohmann::json cluster;
  EXPECT_TRUE(Eventually([&] {
    cluster = Cluster();
    return HeldBy(cluster, "holder") == 1 && cluster["queue"].size() == 1;
  })) << cluster.dump();
  ASSERT_EQ(cluster["nodes"].size(), 1U) << cluster.dump();
  const nlohmann::json& node = cluster["nodes"][0];
  EXPECT_EQ(node["name"], "box");
  EXPECT_EQ(node["cpus"], 8);
  for (const nlohmann::json& device : node["devices"]) {
    EXPECT_TRUE(device["emulated"].get<bool>()) << device.dump();
    if (device["heldBy"].is_object()) {
      EXPECT_EQ(device["accelerator"], "NVIDIA_TESLA_T4") << device.dump();
      EXPECT_EQ(device["heldBy"]["taskName"], "master-replica-0") << device.dump();
    }
  }
  const nlohmann::json& queued = cluster["queue"][0];
  EXPECT_EQ(queued["jobId"], "waiter");
  EXPECT_EQ(queued["position"], 1);
  EXPECT_THAT(queued["reason"].get<std::string>(), HasSubstr("2 × NVIDIA_TESLA_T4 (1 of 2 free)"));

  // `jobs describe` says where the queued job stands and why; nothing for the running one.
  EXPECT_EQ(DescribeErr("waiter"),
            "\nqueuePosition: 1\nwaitReason: " + queued["reason"].get<std::string>() + "\n");
  EXPECT_EQ(DescribeErr("holder"), "");

  // Another project sees the device as taken, by nobody it may name, and no queue of its own.
  const nlohmann::json other = Cluster("elsewhere");
  EXPECT_EQ(HeldBy(other, "holder"), 0) << other.dump();
  EXPECT_TRUE(other["queue"].empty()) << other.dump();
  EXPECT_EQ(other["otherProjectsQueued"], 1) << other.dump();

  // The replica says where it runs.
  const std::string replicas_path = "/trainyard/v1/projects/proj/jobs/holder/replicas";
  const ClientResponse replicas = server_.client().Get(replicas_path);
  const nlohmann::json body = nlohmann::json::parse(replicas.body, nullptr, false);
  ASSERT_EQ(body["replicas"].size(), 1U) << replicas.body;
  EXPECT_EQ(body["replicas"][0]["node"], "box");
  EXPECT_EQ(body["replicas"][0]["deviceIndices"].size(), 1U) << replicas.body;

  EXPECT_EQ(server_.Cancel("waiter").status, 200);
  EXPECT_EQ(server_.Cancel("holder").status, 200);
  EXPECT_EQ(server_.WaitForState("holder")["state"], "CANCELLED");

  // Once it has ended, the executor runs nothing for it; its last run's replicas are kept.
  const nlohmann::json running =
      nlohmann::json::parse(server_.client().Get(replicas_path).body, nullptr, false);
  EXPECT_TRUE(running["replicas"].empty()) << running.dump();
  const nlohmann::json ended = nlohmann::json::parse(
      server_.client().Get(replicas_path + "?includeEnded=true").body, nullptr, false);
  ASSERT_EQ(ended["replicas"].size(), 1U) << ended.dump();
  EXPECT_EQ(ended["replicas"][0]["taskName"], "master-replica-0");
  EXPECT_EQ(ended["replicas"][0]["state"], "EXITED");
  EXPECT_EQ(ended["replicas"][0]["node"], "box");
  EXPECT_THAT(ended["replicas"][0].value("exitStatus", ""), HasSubstr("signal"));
}

// The project's entry (`projects[]`) of `cluster`; null when it has none.
nlohmann::json ProjectEntry(const nlohmann::json& cluster, std::string_view project) {
  for (const nlohmann::json& entry : cluster["projects"]) {
    if (entry["project"] == project) {
      return entry;
    }
  }
  return nullptr;
}

TEST_F(ClusterViewTest, ShowsEachProjectsQuotaUseBorrowedAndShare) {
  const nlohmann::json quota = {
      {"project", "proj"}, {"accelerators", {{"NVIDIA_TESLA_T4", 1}}}, {"weight", 2}};
  const ClientResponse set =
      server_.client().Send("PUT", "/trainyard/v1/projects/proj/quota", quota.dump());
  ASSERT_EQ(set.status, 200) << set.body;
  server_.Submit(SleepingGpuJob("within", 1));
  server_.WaitForState("within", {"RUNNING"});
  server_.Submit(SleepingGpuJob("beyond", 1));  // the other T4 is idle: borrowed
  server_.WaitForState("beyond", {"RUNNING"});

  nlohmann::json entry;
  EXPECT_TRUE(Eventually([&] {
    entry = ProjectEntry(Cluster(), "proj");
    return entry.is_object() && entry["use"]["jobs"] == 2;
  })) << entry.dump();
  EXPECT_EQ(entry["quota"], quota);
  EXPECT_EQ(entry["use"]["accelerators"], (nlohmann::json{{"NVIDIA_TESLA_T4", 2}}));
  EXPECT_EQ(entry["use"]["cpus"], 16);
  EXPECT_EQ(
      entry["borrowed"],
      (nlohmann::json{
          {"accelerators", {{"NVIDIA_TESLA_T4", 1}}}, {"cpus", 0}, {"memory", "0"}, {"jobs", 0}}));
  EXPECT_EQ(entry["share"], 1.0);  // both T4s; vCPUs are shared, so not counted
  EXPECT_EQ(entry["weight"], 2);
  EXPECT_EQ(entry["waitingJobs"], 0);

  // A project without a quota borrows nothing and has weight 1.
  ASSERT_EQ(server_.client().Send("DELETE", "/trainyard/v1/projects/proj/quota", "").status, 200);
  EXPECT_TRUE(Eventually([&] {
    entry = ProjectEntry(Cluster(), "proj");
    return entry.is_object() && entry["quota"].is_null();
  })) << entry.dump();
  EXPECT_TRUE(entry["borrowed"]["accelerators"].empty()) << entry.dump();
  EXPECT_EQ(entry["weight"], 1);
  EXPECT_EQ(entry["share"], 1.0);

  EXPECT_EQ(server_.Cancel("beyond").status, 200);
  EXPECT_EQ(server_.Cancel("within").status, 200);
  server_.WaitForState("within");
  server_.WaitForState("beyond");
}

}  // namespace
}  // namespace trainyard::testing
