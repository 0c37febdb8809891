// The server killed with SIGKILL, then started again on the same data dir: replicas outlive it,
// the new server takes them over, and every job ends as it would have without the restart —
// nothing lost, nothing run twice, no gap in the logs, no process left behind. The server runs as
// a child process (`ty_serve_for_tests`) so the test can kill it.
#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "api/storage/json.h"
#include "fakes/temp_dir.h"
#include "integration/executing_server.h"
#include "integration/http_client.h"
#include "integration/serve_process.h"

namespace trainyard::testing {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kJobs[] = "/v1/projects/proj/jobs";

class RestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    data_ = dir_.File("data");
    StartServer();
    ASSERT_EQ(client_->Post("/storage/v1/b?project=proj", json{{"name", "bkt"}}.dump()).status,
              200);
    const Sdist sdist = BuildTrainerSdist();
    ASSERT_FALSE(sdist.bytes.empty());
    package_uri_ = "gs://bkt/packages/" + sdist.file_name;
    Upload("packages/" + sdist.file_name, sdist.bytes);
  }

  void StartServer() {
    serve_ = std::make_unique<ServeProcess>(data_);
    ASSERT_TRUE(serve_->started()) << serve_->output();
    client_ = std::make_unique<HttpClient>(serve_->port());
  }

  void KillServer() {
    client_.reset();
    serve_->Signal(SIGKILL);
    EXPECT_EQ(serve_->Wait(), -SIGKILL);
  }

  void Upload(const std::string& name, const std::string& bytes) {
    const ClientResponse uploaded = client_->Send(
        "POST", "/upload/storage/v1/b/bkt/o?uploadType=media&name=" + server::PercentEncode(name),
        bytes, {{"Content-Type", "application/gzip"}});
    ASSERT_EQ(uploaded.status, 200) << uploaded.body;
  }

  // master + 2 workers + 1 parameter server running trainer.chatter.
  json ChatterJob(const std::string& id, std::vector<std::string> args) {
    return {{"jobId", id},
            {"trainingInput",
             {{"scaleTier", "CUSTOM"},
              {"masterType", "n1-standard-4"},
              {"workerType", "n1-standard-4"},
              {"workerCount", "2"},
              {"parameterServerType", "n1-standard-4"},
              {"parameterServerCount", "1"},
              {"region", "us-central1"},
              {"packageUris", {package_uri_}},
              {"pythonModule", "trainer.chatter"},
              {"args", args},
              {"runtimeVersion", "2.11"},
              {"pythonVersion", "3.7"},
              {"jobDir", "gs://bkt/" + id}}}};
  }

  void Submit(const json& job) {
    const ClientResponse created = client_->Post(kJobs, job.dump());
    ASSERT_EQ(created.status, 200) << created.body;
  }

  json GetJob(const std::string& id) {
    const ClientResponse got = client_->Get(std::string(kJobs) + "/" + id);
    return got.status == 200 ? json::parse(got.body) : json();
  }

  std::string WaitForState(const std::string& id, const std::vector<std::string>& states) {
    std::string state;
    Eventually([&] {
      state = GetJob(id).value("state", "");
      return std::find(states.begin(), states.end(), state) != states.end();
    });
    return state;
  }

  fs::path JobFiles(const std::string& id) const { return fs::path(data_) / "jobs/proj" / id; }
  fs::path JobDir(const std::string& id) const { return fs::path(data_) / "buckets/bkt" / id; }

  // How many lines the replica's records file holds.
  std::size_t RecordedLines(const std::string& id, const std::string& task) const {
    const std::string text = ReadFile(JobFiles(id) / "logs" / (task + ".log")).value_or("");
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
  }

  // The text of every entry of `task` (textPayload, or jsonPayload.message for the service's).
  std::vector<std::string> LoggedLines(const std::string& id, const std::string& task) {
    std::vector<std::string> lines;
    for (const json& entry :
         ListLogEntries(*client_, id, "resource.labels.task_name=\"" + task + "\"")) {
      lines.push_back(entry.contains("jsonPayload") ? entry["jsonPayload"].value("message", "")
                                                    : entry.value("textPayload", ""));
    }
    return lines;
  }

  // The pids each start of `task` recorded: one line per start.
  std::vector<int> StartedPids(const std::string& id, const std::string& task) const {
    std::istringstream text(ReadFile(JobDir(id) / (task + ".pids")).value_or(""));
    std::vector<int> pids;
    for (int pid = 0; text >> pid;) {
      pids.push_back(pid);
    }
    return pids;
  }

  // The supervisors' pids in the job's run record.
  std::vector<int> SupervisorPids(const std::string& id) const {
    std::vector<int> pids;
    const json record =
        json::parse(ReadFile(JobFiles(id) / "run/replicas.json").value_or("{}"), nullptr, false);
    for (const json& replica : record.value("replicas", json::array())) {
      pids.push_back(replica.value("pid", 0));
    }
    return pids;
  }

  void ExpectNothingLeftRunning(const std::string& id, const std::vector<std::string>& tasks) {
    for (const std::string& task : tasks) {
      for (int pid : StartedPids(id, task)) {
        EXPECT_TRUE(Eventually([&] { return !ProcessAlive(pid); })) << task << " pid " << pid;
      }
    }
    for (int pid : SupervisorPids(id)) {
      EXPECT_TRUE(pid > 0 && Eventually([&] { return !ProcessAlive(pid); })) << pid;
    }
  }

  TempDir dir_;
  std::string data_;
  std::unique_ptr<ServeProcess> serve_;
  std::unique_ptr<HttpClient> client_;
  std::string package_uri_;
};

const std::vector<std::string> kTasks = {"master-replica-0", "worker-replica-0", "worker-replica-1",
                                         "ps-replica-0"};

TEST_F(RestartTest, RunningJobIsTakenOverAndSucceedsWithEveryLineOnce) {
  constexpr int kLines = 300;
  Submit(ChatterJob("survivor", {"--lines=" + std::to_string(kLines), "--interval=0.02"}));
  ASSERT_EQ(WaitForState("survivor", {"RUNNING", "SUCCEEDED", "FAILED"}), "RUNNING");
  ASSERT_TRUE(Eventually([&] { return RecordedLines("survivor", "master-replica-0") >= 20; }));
  KillServer();
  // The replicas go on, and so does their output, while no server runs.
  const std::size_t at_kill = RecordedLines("survivor", "worker-replica-1");
  EXPECT_TRUE(
      Eventually([&] { return RecordedLines("survivor", "worker-replica-1") > at_kill + 10; }));
  StartServer();

  EXPECT_EQ(WaitForState("survivor", {"SUCCEEDED", "FAILED", "CANCELLED"}), "SUCCEEDED")
      << GetJob("survivor").dump();
  for (const std::string& task : kTasks) {
    // Even lines went to stdout, odd ones to stderr: each stream's order is exact, but two lines
    // written back to back on both pipes may be read in either order by a busy supervisor.
    std::vector<std::string> expected[2];
    for (int i = 0; i < kLines; ++i) {
      expected[i % 2].push_back(task + " line " + std::to_string(i));
    }
    std::vector<std::string> logged[2];
    for (const std::string& line : LoggedLines("survivor", task)) {
      logged[line.empty() ? 0 : (line.back() - '0') % 2].push_back(line);
    }
    if (task != "master-replica-0") {
      // The others are stopped when the master ends, which on a busy machine can come before
      // they printed their last lines: what they printed must still be there once, in order.
      for (std::vector<std::string>& lines : expected) {
        lines.resize(std::min(lines.size(), logged[&lines - expected].size()));
      }
    }
    EXPECT_EQ(logged[0], expected[0]) << task << " stdout, " << logged[0].size() << " lines";
    EXPECT_EQ(logged[1], expected[1]) << task << " stderr, " << logged[1].size() << " lines";
    EXPECT_EQ(StartedPids("survivor", task).size(), 1U) << task << " started more than once";
  }
  const std::vector<std::string> service = LoggedLines("survivor", "service");
  EXPECT_NE(std::find(service.begin(), service.end(),
                      "The trainyard server restarted; it took over 4 running replicas of 4."),
            service.end())
      << ::testing::PrintToString(service);
  ExpectNothingLeftRunning("survivor", kTasks);
}

TEST_F(RestartTest, StudyTakesOverItsRunningTrialsAndRunsEachOnce) {
  json job = {
      {"jobId", "study"},
      {"trainingInput",
       {{"scaleTier", "BASIC"},
        {"region", "us-central1"},
        {"packageUris", {package_uri_}},
        {"pythonModule", "trainer.tune"},
        {"args", {"--steps=3", "--interval=1"}},
        {"runtimeVersion", "2.11"},
        {"pythonVersion", "3.7"},
        {"jobDir", "gs://bkt/study"},
        {"hyperparameters",
         {{"goal", "MAXIMIZE"},
          {"algorithm", "GRID_SEARCH"},
          {"hyperparameterMetricTag", "score"},
          {"maxTrials", 3},
          {"maxParallelTrials", 2},
          {"params",
           {{{"parameterName", "x"}, {"type", "DISCRETE"}, {"discreteValues", {1, 2, 3}}}}}}}}}};
  Submit(job);
  ASSERT_TRUE(Eventually([&] {
    const json trials =
        GetJob("study").value("trainingOutput", json::object()).value("trials", json::array());
    return trials.size() == 2 && fs::exists(JobDir("study") / "trial-2.pids");
  }));
  KillServer();
  // Trials 1 and 2 finish while no server runs; their exits and metrics are read afterwards.
  ASSERT_TRUE(Eventually([&] {
    return fs::exists(JobFiles("study") / "run/trial-1/master-replica-0.exit") &&
           fs::exists(JobFiles("study") / "run/trial-2/master-replica-0.exit");
  }));
  StartServer();

  ASSERT_EQ(WaitForState("study", {"SUCCEEDED", "FAILED", "CANCELLED"}), "SUCCEEDED")
      << GetJob("study").dump();
  const json output = GetJob("study")["trainingOutput"];
  EXPECT_EQ(output.value("completedTrialCount", ""), "3");
  ASSERT_EQ(output["trials"].size(), 3U);
  for (const json& trial : output["trials"]) {
    const std::string id = trial.value("trialId", "");
    EXPECT_EQ(trial.value("state", ""), "SUCCEEDED") << trial.dump();
    EXPECT_EQ(trial["finalMetric"].value("objectiveValue", 0.0),
              std::stod(trial["hyperparameters"].value("x", "0")))
        << trial.dump();
    EXPECT_EQ(trial["finalMetric"].value("trainingStep", ""), "3") << trial.dump();
    std::istringstream pids(ReadFile(JobDir("study") / ("trial-" + id + ".pids")).value_or(""));
    int count = 0;
    for (int pid = 0; pids >> pid;) {
      ++count;
    }
    EXPECT_EQ(count, 1) << "trial " << id << " started more than once";
  }
  EXPECT_EQ(output["trials"][0]["hyperparameters"].value("x", ""), "3") << "best first";
  const std::vector<std::string> service = LoggedLines("study", "service");
  EXPECT_NE(std::find(service.begin(), service.end(),
                      "The trainyard server restarted; it took over 2 running trials."),
            service.end())
      << ::testing::PrintToString(service);
}

TEST_F(RestartTest, CancelInProgressFinishesAfterTheRestart) {
  Submit(ChatterJob("leaving", {"--lines=100000", "--interval=0.05", "--on-sigterm=linger"}));
  ASSERT_EQ(WaitForState("leaving", {"RUNNING", "FAILED"}), "RUNNING");
  ASSERT_TRUE(Eventually([&] { return RecordedLines("leaving", "ps-replica-0") >= 5; }));
  ASSERT_EQ(client_->Post(std::string(kJobs) + "/leaving:cancel", "{}").status, 200);
  ASSERT_EQ(WaitForState("leaving", {"CANCELLING", "CANCELLED"}), "CANCELLING");
  KillServer();
  StartServer();

  const json job = GetJob("leaving");
  EXPECT_EQ(WaitForState("leaving", {"CANCELLED", "FAILED", "SUCCEEDED"}), "CANCELLED")
      << GetJob("leaving").dump();
  EXPECT_EQ(GetJob("leaving").value("errorMessage", ""), "Job was cancelled by the user.");
  for (const std::string& task : kTasks) {
    EXPECT_EQ(StartedPids("leaving", task).size(), 1U) << task << " was restarted";
    const std::vector<std::string> lines = LoggedLines("leaving", task);
    EXPECT_NE(std::find(lines.begin(), lines.end(), task + " stopping"), lines.end()) << task;
  }
  ExpectNothingLeftRunning("leaving", kTasks);
}

TEST_F(RestartTest, PreparingJobIsQueuedAgainAndRunsOnce) {
  Upload("packages/slow_setup-0.1.tar.gz", PackTrainerDir("slow_setup"));
  Submit({{"jobId", "slow"},
          {"trainingInput",
           {{"scaleTier", "BASIC"},
            {"region", "us-central1"},
            {"packageUris", {"gs://bkt/packages/slow_setup-0.1.tar.gz"}},
            {"pythonModule", "slow_setup.task"},
            {"runtimeVersion", "2.11"},
            {"pythonVersion", "3.7"}}}});
  ASSERT_EQ(WaitForState("slow", {"PREPARING", "RUNNING", "SUCCEEDED", "FAILED"}), "PREPARING");
  KillServer();
  StartServer();

  EXPECT_EQ(WaitForState("slow", {"SUCCEEDED", "FAILED", "CANCELLED"}), "SUCCEEDED")
      << GetJob("slow").dump();
  EXPECT_EQ(LoggedLines("slow", "master-replica-0"), std::vector<std::string>{"slow_setup ran"});
  ExpectNothingLeftRunning("slow", {"master-replica-0"});
}

}  // namespace
}  // namespace trainyard::testing
