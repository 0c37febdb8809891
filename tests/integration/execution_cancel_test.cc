// Stopping running jobs for real: a user's cancel (CANCELLING, then CANCELLED once every process
// is gone, whatever the trainer does with SIGTERM) and the server being stopped under a running
// job. trainer.sleeper starts a grandchild `sleep 1000` in its process group, which must go too.
#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>

#include <gtest/gtest.h>

#include "integration/executing_server.h"

namespace trainyard::testing {
namespace {

// The pids trainer.sleeper wrote once it and its grandchild ran. When a test fails because one
// escaped, it is killed here so that no `sleep 1000` outlives the test.
struct SleeperPids {
  int trainer = 0;
  int grandchild = 0;

  SleeperPids(int trainer_pid, int grandchild_pid)
      : trainer(trainer_pid), grandchild(grandchild_pid) {}
  SleeperPids(const SleeperPids&) = delete;
  SleeperPids& operator=(const SleeperPids&) = delete;
  ~SleeperPids() {
    for (int pid : {trainer, grandchild}) {
      const std::string command =
          ReadFile("/proc/" + std::to_string(pid) + "/cmdline").value_or("");
      if (ProcessAlive(pid) &&
          (command.starts_with("sleep") || command.find("trainer.sleeper") != std::string::npos)) {
        kill(pid, SIGKILL);
      }
    }
  }
};

nlohmann::json SleeperJob(std::string_view job_id, std::string_view package_uri,
                          std::string_view on_sigterm) {
  nlohmann::json job = RuntimeJob(job_id, "trainer.sleeper", package_uri);
  job["trainingInput"]["args"] = {"--on-sigterm", on_sigterm};
  return job;
}

// Waits until the job is RUNNING and its sleeper wrote pids.json.
SleeperPids WaitForSleeper(ExecutingServer& server, const std::filesystem::path& job_dir,
                           std::string_view job_id) {
  const nlohmann::json running = server.WaitForState(job_id, {"RUNNING"});
  EXPECT_EQ(running["state"], "RUNNING") << running.dump();
  const std::filesystem::path file = job_dir / "pids.json";
  if (!Eventually([&] { return ReadJson(file).is_object(); })) {
    ADD_FAILURE() << "the sleeper wrote no pids.json; job: " << server.GetJob(job_id).dump();
    return {0, 0};
  }
  const nlohmann::json pids = ReadJson(file);
  return {pids["trainer"].get<int>(), pids["grandchild"].get<int>()};
}

struct CancelCase {
  std::string name;
  std::string on_sigterm;  // trainer.sleeper's --on-sigterm
  std::chrono::milliseconds stop_grace;
};

void PrintTo(const CancelCase& c, std::ostream* os) {
  *os << c.name;
}

class CancelTest : public ExecutionTest, public ::testing::WithParamInterface<CancelCase> {
 protected:
  static app::ServeOptions Options() {
    app::ServeOptions options = ExecutingServer::DefaultOptions();
    options.stop_grace = GetParam().stop_grace;
    return options;
  }
  CancelTest() : ExecutionTest(Options()) {}
};

TEST_P(CancelTest, CancelStopsTheReplicaAndEverythingItStarted) {
  const CancelCase& c = GetParam();
  server_.Submit(SleeperJob("sleep_1", package_uri(), c.on_sigterm));
  const SleeperPids pids = WaitForSleeper(server_, JobDir("sleep_1"), "sleep_1");
  ASSERT_TRUE(ProcessAlive(pids.trainer));
  ASSERT_TRUE(ProcessAlive(pids.grandchild));

  const ClientResponse cancelled = server_.Cancel("sleep_1");
  ASSERT_EQ(cancelled.status, 200) << cancelled.body;
  if (c.on_sigterm == "release") {
    // The trainer got SIGTERM and holds on until released (the grace is long): the job is
    // CANCELLING until its last process is gone.
    ASSERT_TRUE(Eventually([&] { return std::filesystem::exists(JobDir("sleep_1") / "sigterm"); }));
    EXPECT_EQ(server_.GetJob("sleep_1")["state"], "CANCELLING");
    std::ofstream(JobDir("sleep_1") / "release") << "go\n";
  }

  const nlohmann::json job = server_.WaitForState("sleep_1");
  EXPECT_EQ(job["state"], "CANCELLED") << job.dump();
  EXPECT_EQ(job.value("errorMessage", ""), "Job was cancelled by the user.");
  EXPECT_TRUE(job.contains("endTime")) << job.dump();
  // The process group was killed. SIGKILL reaches the trainer with its supervisor (after the
  // grace), but the job may read CANCELLED, from the supervisor's end, a moment before the
  // trainer is gone on a loaded machine (seen once under `scripts/test.sh` with other builds);
  // a grandchild's death needs no reaping by us either.
  EXPECT_TRUE(Eventually([&] { return !ProcessAlive(pids.trainer); }));
  EXPECT_TRUE(Eventually([&] { return !ProcessAlive(pids.grandchild); }));
  EXPECT_EQ(server_.Cancel("sleep_1").status, 400);  // "Cannot cancel an already completed job."
}

INSTANTIATE_TEST_SUITE_P(
    SigtermHandling, CancelTest,
    ::testing::Values(CancelCase{"TrainerExitsOnSigterm", "exit", std::chrono::seconds(2)},
                      CancelCase{"TrainerIgnoresSigterm", "ignore", std::chrono::seconds(2)},
                      CancelCase{"TrainerFinishesAfterSigterm", "release",
                                 std::chrono::seconds(60)}),
    [](const auto& tc) { return tc.param.name; });

class ServerStopTest : public ExecutionTest {};

TEST_F(ServerStopTest, StoppingTheServerStopsRunningReplicasAndFailsTheJob) {
  // It ignores SIGTERM, so the server has to escalate to SIGKILL after the grace.
  server_.Submit(SleeperJob("sleep_1", package_uri(), "ignore"));
  const SleeperPids pids = WaitForSleeper(server_, JobDir("sleep_1"), "sleep_1");
  ASSERT_TRUE(ProcessAlive(pids.trainer));

  server_.Stop();
  // The SIGKILL that ended its supervisor reached it too; it may take a moment to die.
  EXPECT_TRUE(Eventually([&] { return !ProcessAlive(pids.trainer); }));
  EXPECT_TRUE(Eventually([&] { return !ProcessAlive(pids.grandchild); }));

  server_.Restart();
  const nlohmann::json job = server_.GetJob("sleep_1");
  EXPECT_EQ(job["state"], "FAILED") << job.dump();
  EXPECT_EQ(job.value("errorMessage", ""),
            "The trainyard server was stopped while the job was running.");
  EXPECT_TRUE(job.contains("endTime")) << job.dump();
}

app::ServeOptions LeavingJobsRunning() {
  app::ServeOptions options = ExecutingServer::DefaultOptions();
  options.stop_jobs_on_exit = false;  // trainyard serve's default
  return options;
}

class ServerRestartTest : public ExecutionTest {
 protected:
  ServerRestartTest() : ExecutionTest(LeavingJobsRunning()) {}
};

TEST_F(ServerRestartTest, StoppedServerLeavesReplicasRunningForTheNextOneToTakeOver) {
  server_.Submit(SleeperJob("sleep_1", package_uri(), "exit"));
  const SleeperPids pids = WaitForSleeper(server_, JobDir("sleep_1"), "sleep_1");

  server_.Stop();
  EXPECT_TRUE(ProcessAlive(pids.trainer));
  server_.Restart();
  EXPECT_EQ(server_.GetJob("sleep_1")["state"], "RUNNING");
  const ClientResponse replicas =
      server_.client().Get("/trainyard/v1/projects/proj/jobs/sleep_1/replicas");
  EXPECT_EQ(replicas.status, 200) << replicas.body;
  EXPECT_NE(replicas.body.find("\"RUNNING\""), std::string::npos) << replicas.body;

  // The new server owns the replica: a cancel stops it.
  EXPECT_EQ(server_.Cancel("sleep_1").status, 200);
  const nlohmann::json job = server_.WaitForState("sleep_1");
  EXPECT_EQ(job["state"], "CANCELLED") << job.dump();
  EXPECT_TRUE(Eventually([&] { return !ProcessAlive(pids.trainer); }));
  EXPECT_TRUE(Eventually([&] { return !ProcessAlive(pids.grandchild); }));
}

}  // namespace
}  // namespace trainyard::testing
