// The executor with jobs that carry extras (model/job_extras.h, a TFJob's asks): each role's
// restart rule, the job's backoff limit, the AllWorkers success rule, restarting the whole
// cluster, suspension, and the Kubeflow names reaching a container.
#include <algorithm>
#include <chrono>
#include <csignal>
#include <filesystem>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "control/executor_fixture.h"
#include "fakes/fake_container_runtime.h"

namespace trainyard::control {
namespace {

using model::RestartRule;

class ExecutorExtrasTest : public ExecutorTest {
 protected:
  // `Distributed(id, workers, ps)` with extras set by `edit`.
  static model::Job WithExtras(std::string id, int workers, int ps,
                               const std::function<void(model::JobExtras&)>& edit) {
    model::Job job = Distributed(std::move(id), workers, ps);
    job.extras.emplace();
    edit(*job.extras);
    return job;
  }

  // Changes the stored job's extras, as the Kubernetes API does, and wakes the executor.
  void EditStored(std::string_view id, const std::function<void(model::JobExtras&)>& edit) {
    const Result<store::RevisionedJob> changed =
        controller_->Mutate(kProject, id, [&](const model::Job& current) {
          model::Job next = current;
          edit(*next.extras);
          return Result<std::optional<model::Job>>(std::optional(std::move(next)));
        });
    ASSERT_TRUE(changed.ok()) << changed.status().ToString();
    executor().Wake();
  }

  // Ends every replica still running with SIGTERM, as stopped replicas do.
  void StopAll(const std::vector<FakeLauncher::Started>& started) {
    for (const FakeLauncher::Started& replica : started) {
      executor().OnExit(replica.pid, Killed(SIGTERM));
    }
    Settle();
  }

  int RestartsOf(std::string_view id, std::size_t replica) {
    return executor().Replicas(kProject, id)->at(replica).restarts;
  }
};

TEST_F(ExecutorExtrasTest, OnFailureRestartsAReplicaThatExitsNonZero) {
  Submit(WithExtras("onfail", 1, 0,
                    [](model::JobExtras& e) { e.worker.restart = RestartRule::kOnFailure; }));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 2U);
  Exit(started[1].pid, Exited(1));
  EXPECT_EQ(Get("onfail").state, JobState::kRunning);
  clock_.Advance(std::chrono::seconds(1));
  Settle();
  ASSERT_EQ(launcher_.started().size(), 3U);
  EXPECT_EQ(launcher_.started()[2].spec.argv, started[1].spec.argv);
  EXPECT_EQ(launcher_.started()[2].spec.env, started[1].spec.env);
  EXPECT_EQ(RestartsOf("onfail", 1), 1);
  EXPECT_TRUE(launcher_.SignalsTo(started[0].pid).empty()) << "the master runs on";
}

TEST_F(ExecutorExtrasTest, NeverFailsTheJobEvenOnASignal) {
  Submit(WithExtras("never", 1, 0,
                    [](model::JobExtras& e) { e.master.restart = RestartRule::kNever; }));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  Exit(started[0].pid, Killed(SIGKILL));
  EXPECT_EQ(launcher_.SignalsTo(started[1].pid), std::vector<int>{SIGTERM});
  StopAll({started[1]});
  const model::Job job = Get("never");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.error_message,
            "The replica master 0 was terminated by signal 9 (SIGKILL). Termination reason: "
            "Error.");
  EXPECT_EQ(launcher_.started().size(), 2U);
}

TEST_F(ExecutorExtrasTest, ExitCodeFailsOnAPermanentCode) {
  Submit(WithExtras("permanent", 1, 0,
                    [](model::JobExtras& e) { e.worker.restart = RestartRule::kExitCode; }));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  Exit(started[1].pid, Exited(3));
  StopAll({started[0]});
  const model::Job job = Get("permanent");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.error_message,
            "The replica worker 0 exited with a non-zero status of 3. Termination reason: Error.");
}

TEST_F(ExecutorExtrasTest, ExitCodeRestartsOnARetryableCode) {
  Submit(WithExtras("retryable", 1, 0,
                    [](model::JobExtras& e) { e.worker.restart = RestartRule::kExitCode; }));
  Settle();
  Exit(launcher_.started()[1].pid, Exited(137));
  clock_.Advance(std::chrono::seconds(1));
  Settle();
  EXPECT_EQ(launcher_.started().size(), 3U);
  EXPECT_EQ(Get("retryable").state, JobState::kRunning);
}

TEST_F(ExecutorExtrasTest, BackoffLimitIsSharedByEveryReplicaAndFailsTheJobBeyondIt) {
  Submit(WithExtras("backoff", 2, 0, [](model::JobExtras& e) {
    e.worker.restart = RestartRule::kOnFailure;
    e.backoff_limit = 1;
    e.kubeflow = model::KubeflowNaming{
        .job_name = "mnist", .namespace_name = "team-a", .primary_type = "chief"};
  }));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 3U);
  Exit(started[1].pid, Exited(1));
  clock_.Advance(std::chrono::seconds(1));
  Settle();
  ASSERT_EQ(launcher_.started().size(), 4U) << "the first restart is within the limit";
  Exit(started[2].pid, Exited(1));  // another worker: the second restart
  EXPECT_EQ(launcher_.started().size(), 4U);
  StopAll({started[0], launcher_.started()[3]});
  const model::Job job = Get("backoff");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.error_message,
            "Job team-a/mnist has failed because it has reached the specified backoff limit");
}

TEST_F(ExecutorExtrasTest, AllWorkersWaitsForEveryWorkerAfterTheMaster) {
  Submit(WithExtras("all", 2, 1,
                    [](model::JobExtras& e) { e.success = model::SuccessRule::kAllWorkers; }));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 4U);  // master, 2 workers, ps
  Exit(started[0].pid, Exited(0));
  EXPECT_EQ(Get("all").state, JobState::kRunning);
  EXPECT_TRUE(launcher_.SignalsTo(started[1].pid).empty()) << "the workers go on";
  Exit(started[1].pid, Exited(0));
  EXPECT_EQ(Get("all").state, JobState::kRunning);
  Exit(started[2].pid, Exited(0));
  EXPECT_EQ(launcher_.SignalsTo(started[3].pid), std::vector<int>{SIGTERM}) << "the ps stops";
  StopAll({started[3]});
  EXPECT_EQ(Get("all").state, JobState::kSucceeded);
}

TEST_F(ExecutorExtrasTest, RestartAllOnFailureStopsEveryReplicaThenStartsThemAllAgain) {
  Submit(WithExtras("together", 1, 1, [](model::JobExtras& e) {
    e.worker.restart = RestartRule::kOnFailure;
    e.restart_all_on_failure = true;
  }));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 3U);
  Exit(started[1].pid, Exited(1));
  EXPECT_EQ(launcher_.SignalsTo(started[0].pid), std::vector<int>{SIGTERM});
  EXPECT_EQ(launcher_.SignalsTo(started[2].pid), std::vector<int>{SIGTERM});
  clock_.Advance(std::chrono::seconds(2));
  Settle();
  EXPECT_EQ(launcher_.started().size(), 3U) << "not before every replica has ended";
  StopAll({started[0], started[2]});
  EXPECT_EQ(Get("together").state, JobState::kRunning) << "stopped by trainyard: no failure";
  ASSERT_EQ(launcher_.started().size(), 6U);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(launcher_.started()[3 + i].spec.argv, started[i].spec.argv);
    EXPECT_EQ(RestartsOf("together", i), 1);
  }
}

TEST_F(ExecutorExtrasTest, ASuspendedJobIsNotPlaced) {
  Submit(WithExtras("held", 0, 0, [](model::JobExtras& e) { e.suspended = true; }));
  Settle();
  const model::Job job = Get("held");
  EXPECT_EQ(job.state, JobState::kQueued);
  EXPECT_EQ(job.job_position, 0);
  EXPECT_TRUE(launcher_.started().empty());
  EXPECT_TRUE(stager_.requests.empty());
}

TEST_F(ExecutorExtrasTest, SuspendingARunningJobStopsItAndRequeuesItAndResumingRunsItAgain) {
  Submit(WithExtras("pausable", 1, 0, [](model::JobExtras&) {}));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 2U);
  Output(started[0].pid, logs::Stream::kStdout, {"epoch 1"});
  EditStored("pausable", [](model::JobExtras& e) { e.suspended = true; });
  Settle();
  for (const FakeLauncher::Started& replica : started) {
    EXPECT_EQ(launcher_.SignalsTo(replica.pid), std::vector<int>{SIGTERM});
  }
  clock_.Advance(std::chrono::seconds(11));
  Settle();
  EXPECT_EQ(launcher_.SignalsTo(started[1].pid), (std::vector<int>{SIGTERM, SIGKILL}))
      << "as a cancel: SIGKILL after the grace period";
  StopAll(started);
  model::Job queued = Get("pausable");
  EXPECT_EQ(queued.state, JobState::kQueued);
  EXPECT_FALSE(queued.start_time.has_value());
  EXPECT_FALSE(queued.end_time.has_value());
  EXPECT_TRUE(queued.error_message.empty());
  EXPECT_TRUE(std::filesystem::exists(LogOf(started[0].pid))) << "its logs are kept";
  clock_.Advance(std::chrono::seconds(5));
  Settle();
  EXPECT_EQ(launcher_.started().size(), 2U) << "not placed while suspended";
  EXPECT_EQ(Get("pausable").state, JobState::kQueued);

  EditStored("pausable", [](model::JobExtras& e) { e.suspended = false; });
  Settle();
  EXPECT_EQ(Get("pausable").state, JobState::kRunning);
  EXPECT_TRUE(Get("pausable").start_time.has_value());
  ASSERT_EQ(launcher_.started().size(), 4U);
  EXPECT_EQ(launcher_.started()[2].spec.argv, started[0].spec.argv);
  Exit(launcher_.started()[2].pid, Exited(0));
  StopAll({launcher_.started()[3]});
  EXPECT_EQ(Get("pausable").state, JobState::kSucceeded);
}

TEST_F(ExecutorExtrasTest, SuspendingAPreparingJobRequeuesIt) {
  defer_staging_ = true;
  Submit(WithExtras("staging", 0, 0, [](model::JobExtras&) {}));
  Settle();
  EXPECT_EQ(Get("staging").state, JobState::kPreparing);
  EditStored("staging", [](model::JobExtras& e) { e.suspended = true; });
  Settle();
  EXPECT_EQ(Get("staging").state, JobState::kQueued);
  ASSERT_EQ(deferred_.size(), 1U);
  deferred_[0]();  // staging ends after the suspension: nothing starts
  Settle();
  EXPECT_TRUE(launcher_.started().empty());
  EXPECT_EQ(Get("staging").state, JobState::kQueued);
}

class ExecutorKubeflowContainerTest : public ExecutorExtrasTest {
 protected:
  ExecutorKubeflowContainerTest() {
    customize_ = [this](ExecutorOptions& options) { options.containers = &runtime_; };
  }
  testing::FakeContainerRuntime runtime_;
};

TEST_F(ExecutorKubeflowContainerTest, ContainersGetTheirWorkingDirAndTheirPeersNames) {
  model::Job job = WithExtras("kf", 1, 0, [](model::JobExtras& e) {
    e.kubeflow = model::KubeflowNaming{
        .job_name = "mnist", .namespace_name = "team-a", .primary_type = "chief"};
    e.master.working_dir = "/workspace";
  });
  job.training_input->package_uris.clear();
  job.training_input->python_module.clear();
  job.training_input->runtime_version.clear();
  job.training_input->python_version.clear();
  job.training_input->master_config =
      model::ReplicaConfig{.image_uri = "127.0.0.1:5000/team/trainer:1"};
  Submit(job);
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 2U);
  ASSERT_TRUE(started[0].spec.container.has_value());
  EXPECT_EQ(started[0].spec.container->working_dir, "/workspace");
  EXPECT_EQ(started[1].spec.container->working_dir, "");
  const std::vector<std::pair<std::string, std::string>> hosts = {
      {"mnist-chief-0.team-a.svc", "127.0.0.1"},
      {"mnist-chief-0", "127.0.0.1"},
      {"mnist-worker-0.team-a.svc", "127.0.0.1"},
      {"mnist-worker-0", "127.0.0.1"}};
  EXPECT_EQ(started[1].spec.container->hosts, hosts);
  const auto tf_config = std::ranges::find(started[1].spec.env, std::string("TF_CONFIG"),
                                           &std::pair<std::string, std::string>::first);
  ASSERT_NE(tf_config, started[1].spec.env.end());
  EXPECT_EQ(
      tf_config->second,
      R"({"cluster":{"chief":["mnist-chief-0.team-a.svc:20000"],"worker":["mnist-worker-0.team-a.svc:20001"]},"task":{"type":"worker","index":0},"environment":"cloud"})");
}

}  // namespace
}  // namespace trainyard::control

namespace trainyard::control {
namespace {

TEST_F(ExecutorExtrasTest, ANodeSelectorNoNodeSatisfiesFailsTheJobSayingSo) {
  Submit(ExecutorExtrasTest::WithExtras("selective", 1, 0, [](model::JobExtras& e) {
    e.worker.node_selector = {{"nvidia", "t4"}};
  }));
  Settle();
  const model::Job job = Get("selective");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_NE(job.error_message.find("nvidia=t4"), std::string::npos) << job.error_message;
  EXPECT_TRUE(launcher_.started().empty());
}

TEST_F(ExecutorExtrasTest, ANodeSelectorTheNodeSatisfiesPlacesTheJob) {
  customize_ = [](ExecutorOptions& options) {
    options.inventory.nodes[0].labels = {{"nvidia", "t4"}};
  };
  Submit(ExecutorExtrasTest::WithExtras("placed", 1, 0, [](model::JobExtras& e) {
    e.worker.node_selector = {{"nvidia", "t4"}};
  }));
  Settle();
  EXPECT_EQ(Get("placed").state, JobState::kRunning);
}

}  // namespace
}  // namespace trainyard::control
