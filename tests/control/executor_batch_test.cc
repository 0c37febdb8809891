// The executor with a cluster backend (agent/cluster_job_backend.h), with a fake manager, clock and
// stager: what is submitted, how the manager's states and the tasks' exit files move the job,
// cancel, and how a job ends when the manager's job ends without its replicas' exit files.
#include <chrono>
#include <csignal>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "control/executor_batch_fixture.h"
#include "support/sample_jobs.h"

namespace trainyard::control {
namespace {

// "master x1 4cpu 15360MiB" (+ " NVIDIA_TESLA_T4x2"): a component, comparable at a glance.
std::string Describe(const run::ComponentRequest& component) {
  std::string text = fmt::format("{} x{} {}cpu {}MiB", component.role, component.tasks,
                                 component.cpus_per_task, component.memory_mib);
  if (!component.accelerator.empty() || component.accelerator_count != 0) {
    text += fmt::format(" {}x{}", component.accelerator, component.accelerator_count);
  }
  return text;
}

struct SubmitCase {
  std::string name;
  model::Job job;
  std::vector<std::string> components;
  std::optional<std::chrono::seconds> time_limit;
  int priority = 0;
};

model::Job WithScheduling(model::Job job, std::chrono::milliseconds max_running_time,
                          int priority) {
  job.training_input->scheduling.emplace();
  job.training_input->scheduling->max_running_time = max_running_time;
  job.training_input->scheduling->priority = priority;
  return job;
}

// The fixture's builders are for tests; the rows of a table are built outside them.
struct Jobs : ExecutorTest {
  using ExecutorTest::Distributed;
  using ExecutorTest::WithGpus;
};

model::Job MixedMachines() {
  model::Job job = Jobs::Distributed("j", 2, 1);
  job.training_input->worker_type = "n1-highmem-2";
  return job;
}

class ExecutorBatchSubmitTest : public ExecutorBatchTest,
                                public ::testing::WithParamInterface<SubmitCase> {};

TEST_P(ExecutorBatchSubmitTest, QueuedJobIsSubmittedAtOnceWithComponentsByRole) {
  const SubmitCase& tc = GetParam();
  model::Job job = tc.job;
  job.job_id = "j";
  Submit(job);
  Settle();
  ASSERT_EQ(backend_.submitted().size(), 1U);
  const run::ClusterJobRequest request = backend_.submitted()[0];
  std::vector<std::string> components;
  for (const run::ComponentRequest& component : request.components) {
    components.push_back(Describe(component));
  }
  EXPECT_EQ(components, tc.components);
  EXPECT_EQ(request.time_limit, tc.time_limit);
  EXPECT_EQ(request.priority, tc.priority);
  const JobLayout layout = Layout("j");
  EXPECT_EQ(request.name, "ty-p-j");
  EXPECT_EQ(request.task_command, (std::vector<std::string>{"/opt/ty/bin/trainyard", "batch-task",
                                                            "--launch", layout.launch_file()}));
  EXPECT_EQ(request.working_dir, layout.root());
  EXPECT_EQ(request.output_path, layout.batch_output());
  EXPECT_EQ(Get("j").state, JobState::kPreparing) << "until the manager starts it";
  EXPECT_TRUE(launcher_.started().empty()) << "nothing runs on this machine";
}

INSTANTIATE_TEST_SUITE_P(
    Jobs, ExecutorBatchSubmitTest,
    ::testing::Values(SubmitCase{.name = "BasicTier",
                                 .job = ValidRuntimeJob(),
                                 .components = {"master x1 4cpu 15360MiB"}},
                      SubmitCase{.name = "RolesInTaskOrder",
                                 .job = MixedMachines(),
                                 .components = {"master x1 4cpu 15360MiB",
                                                "worker x2 2cpu 13312MiB", "ps x1 4cpu 15360MiB"}},
                      SubmitCase{.name = "GpusAsGres",
                                 .job = Jobs::WithGpus(ValidRuntimeJob(), 2),
                                 .components = {"master x1 8cpu 30720MiB NVIDIA_TESLA_T4x2"}},
                      SubmitCase{.name = "TimeLimitRoundedUpAndPriority",
                                 .job = WithScheduling(ValidRuntimeJob(),
                                                       std::chrono::milliseconds(90'500), 7),
                                 .components = {"master x1 4cpu 15360MiB"},
                                 .time_limit = std::chrono::seconds(91),
                                 .priority = 7}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(ExecutorBatchTest, LaunchFileCarriesTheJobPortsAndSettings) {
  Submit(Distributed("d", 2, 1));
  Settle();
  const Result<BatchLaunch> launch = LaunchOf("d");
  ASSERT_TRUE(launch.ok()) << launch.status().ToString();
  EXPECT_EQ(launch->job.job_id, "d");
  EXPECT_EQ(launch->job.training_input, Get("d").training_input);
  EXPECT_EQ(launch->project, "p");
  EXPECT_EQ(launch->trial_id, "");
  EXPECT_EQ(launch->data_dir, dir_.path().string());
  EXPECT_EQ(launch->first_port, kFirstPort);
  EXPECT_EQ(launch->supervisor, "/opt/ty/bin/trainyard-replica");
  EXPECT_EQ(launch->node_addresses.at("n1"), "10.0.0.1");
  EXPECT_EQ(launch->restart.max_restarts, RestartPolicy{}.max_restarts);
  EXPECT_EQ(launch->context.job_id, "d");
  EXPECT_EQ(launch->context.python, "/usr/bin/python3");
  EXPECT_EQ(launch->context.gcs_mount, (dir_.path() / "buckets").string());
  EXPECT_EQ(launch->context.storage_emulator_host, "http://127.0.0.1:8470");
  EXPECT_EQ(launch->context.pythonpath, Layout("d").packages_dir());
  EXPECT_TRUE(std::filesystem::is_directory(dir_.path() / "buckets/my-bucket/output"))
      << "the job dir is made before the submit";
}

TEST_F(ExecutorBatchTest, PendingReasonIsSaidOncePerChangeThenRunningStartsTheJob) {
  Submit(Distributed("d", 1, 0));
  Settle();
  Poll();
  Poll();
  EXPECT_EQ(Get("d").state, JobState::kPreparing);
  EXPECT_EQ(CountInServiceLog("d", "FakeSlurm job 1 is PENDING (Priority)."), 1);
  EXPECT_EQ(ReplicaStates("d"), (std::vector<std::string>{"PENDING", "PENDING"}));

  backend_.SetState("1", Phase::kPending, "PENDING", "Resources");
  Poll();
  Poll();
  EXPECT_EQ(CountInServiceLog("d", "FakeSlurm job 1 is PENDING (Resources)."), 1);
  EXPECT_EQ(Get("d").state, JobState::kPreparing);

  backend_.SetState("1", Phase::kRunning, "RUNNING");
  Poll();
  const model::Job job = Get("d");
  EXPECT_EQ(job.state, JobState::kRunning);
  EXPECT_TRUE(job.start_time.has_value());
  EXPECT_EQ(ReplicaStates("d"), (std::vector<std::string>{"RUNNING", "RUNNING"}));
  EXPECT_EQ(CountInServiceLog("d", "Started 2 replicas."), 1);
  EXPECT_EQ(CountInServiceLog("d", "Submitted to FakeSlurm as job 1: 2 replicas in 2 components."),
            1);
}

TEST_F(ExecutorBatchTest, ManagerIsAskedOncePerPollIntervalForAllJobs) {
  Submit(ValidRuntimeJob("a"));
  Submit(ValidRuntimeJob("b"));
  Settle();
  const int before = backend_.queries();
  Settle();
  EXPECT_EQ(backend_.queries(), before) << "not again within the interval";
  Poll();
  EXPECT_EQ(backend_.queries(), before + 1) << "one round trip for both jobs";
}

TEST_F(ExecutorBatchTest, MasterSuccessCancelsTheManagerJobThenSucceedsAfterTheGrace) {
  Submit(Distributed("d", 2, 0));
  Settle();
  backend_.SetState("1", Phase::kRunning, "RUNNING");
  Poll();
  TaskExits("d", "master-replica-0", "exited 0\n");
  Settle();
  EXPECT_EQ(backend_.cancelled(), std::vector<std::string>{"1"});
  EXPECT_EQ(Get("d").state, JobState::kRunning) << "the workers still run";

  backend_.SetState("1", Phase::kFinished, "CANCELLED", "None");
  Poll();
  clock_.Advance(std::chrono::milliseconds(2999));
  Settle();
  EXPECT_EQ(Get("d").state, JobState::kRunning) << "the exit files' grace";
  clock_.Advance(std::chrono::milliseconds(1));
  Settle();
  const model::Job job = Get("d");
  EXPECT_EQ(job.state, JobState::kSucceeded);
  EXPECT_TRUE(job.error_message.empty());
  EXPECT_EQ(backend_.cancelled().size(), 1U);
}

TEST_F(ExecutorBatchTest, CancelTheManagerIgnoresIsSentAgain) {
  Submit(ValidRuntimeJob("d"));
  Settle();
  backend_.SetState("1", Phase::kRunning, "RUNNING");
  Poll();
  ASSERT_TRUE(controller_->Cancel(kProject, "d").ok());
  Settle();
  EXPECT_EQ(backend_.cancelled(), std::vector<std::string>{"1"});
  clock_.Advance(std::chrono::seconds(29));
  Settle();
  EXPECT_EQ(backend_.cancelled().size(), 1U);
  Poll();
  EXPECT_EQ(backend_.cancelled(), (std::vector<std::string>{"1", "1"}));
}

TEST_F(ExecutorBatchTest, UserCancelOfARunningJobCancelsTheManagerJobThenCancelsWhenItEnds) {
  Submit(Distributed("d", 1, 0));
  Settle();
  backend_.SetState("1", Phase::kRunning, "RUNNING");
  Poll();
  ASSERT_TRUE(controller_->Cancel(kProject, "d").ok());
  Settle();
  EXPECT_EQ(backend_.cancelled(), std::vector<std::string>{"1"});
  EXPECT_EQ(Get("d").state, JobState::kCancelling);
  EXPECT_EQ(ReplicaStates("d"), (std::vector<std::string>{"STOPPING", "STOPPING"}));
  ManagerEnds("1", "CANCELLED");
  const model::Job job = Get("d");
  EXPECT_EQ(job.state, JobState::kCancelled);
  EXPECT_EQ(job.error_message, "Job was cancelled by the user.");
  EXPECT_FALSE(executor().Replicas(kProject, "d").has_value()) << "the run is over";
}

TEST_F(ExecutorBatchTest, UserCancelOfAPendingJobCancelsTheManagerJobAtOnce) {
  Submit(Distributed("d", 1, 0));
  Settle();
  ASSERT_TRUE(controller_->Cancel(kProject, "d").ok());
  Settle();
  EXPECT_EQ(backend_.cancelled(), std::vector<std::string>{"1"});
  EXPECT_EQ(Get("d").state, JobState::kCancelled);
  ManagerEnds("1", "CANCELLED");
  const model::Job job = Get("d");
  EXPECT_EQ(job.state, JobState::kCancelled);
  EXPECT_EQ(job.error_message, "Job was cancelled by the user.");
  EXPECT_EQ(backend_.cancelled().size(), 1U);
}

TEST_F(ExecutorBatchTest, FailingWorkerFailsTheJobWithItsStderrTail) {
  Submit(Distributed("d", 2, 0));
  Settle();
  backend_.SetState("1", Phase::kRunning, "RUNNING");
  Poll();
  TaskOutput("d", "worker-replica-0", logs::Stream::kStderr,
             {"Traceback (most recent call last):", "ValueError: bad input"});
  TaskExits("d", "worker-replica-0", "exited 3\n");
  Settle();
  EXPECT_EQ(backend_.cancelled(), std::vector<std::string>{"1"});
  ManagerEnds("1", "CANCELLED");  // trainyard's own cancel: not "outside trainyard"
  const model::Job job = Get("d");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.error_message,
            "The replica worker 0 exited with a non-zero status of 3. Termination reason: Error. "
            "Traceback (most recent call last):\nValueError: bad input");
}

TEST_F(ExecutorBatchTest, SignaledExitIsFinalWithTheTasksRestartCount) {
  Submit(Distributed("d", 1, 0));
  Settle();
  backend_.SetState("1", Phase::kRunning, "RUNNING");
  Poll();
  TaskStarts("d", "worker-replica-0", 3);
  TaskExits("d", "worker-replica-0", "signaled 9\n");
  Settle();
  EXPECT_EQ(ReplicaStates("d"), (std::vector<std::string>{"STOPPING", "EXITED"}))
      << "no restart by the executor: the task restarts its replica itself";
  EXPECT_EQ(executor().Replicas(kProject, "d")->at(1).restarts, 3);
  EXPECT_EQ(executor().Replicas(kProject, "d")->at(1).exit_status,
            "was terminated by signal 9 (SIGKILL)");
  ManagerEnds("1", "CANCELLED");
  const model::Job job = Get("d");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.error_message,
            "The replica worker 0 was terminated by signal 9 (SIGKILL) and was restarted 3 times; "
            "giving up.");
}

// The cluster backend restarts replicas itself (ClusterJobBackend::RestartsReplicas): a crash
// its task reports is final even when the policy would have restarts left.
TEST_F(ExecutorBatchTest, CrashWithRestartsLeftIsFinalNotRestartedByTheExecutor) {
  Submit(Distributed("d", 1, 0));
  Settle();
  backend_.SetState("1", Phase::kRunning, "RUNNING");
  Poll();
  TaskStarts("d", "worker-replica-0", 0);
  TaskExits("d", "worker-replica-0", "signaled 11\n");
  Settle();
  EXPECT_EQ(backend_.cancelled(), std::vector<std::string>{"1"});
  ManagerEnds("1", "CANCELLED");
  const model::Job job = Get("d");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.error_message,
            "The replica worker 0 was terminated by signal 11 (SIGSEGV) and was restarted 0 times; "
            "giving up.");
}

TEST_F(ExecutorBatchTest, RefusedSubmitFailsTheJobWithTheManagersMessage) {
  backend_.RefuseSubmits("sbatch: error: Invalid partition name specified");
  Submit(ValidRuntimeJob("d"));
  Settle();
  const model::Job job = Get("d");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.error_message,
            "FakeSlurm did not accept the job: sbatch: error: Invalid partition name specified");
  EXPECT_TRUE(backend_.cancelled().empty());
}

// The image is pulled in PREPARING, before the manager sees the job: a server with no container
// engine FAILS it at once.
TEST_F(ExecutorBatchTest, ContainerJobWithoutAnEngineFailsBeforeTheManagerSeesIt) {
  model::Job job = ValidRuntimeJob("c");
  model::TrainingInput& input = *job.training_input;
  trainyard::testing::DropPythonPackage(input);
  input.scale_tier = model::ScaleTier::kCustom;
  input.master_type = "n1-standard-4";
  input.master_config.emplace();
  input.master_config->image_uri = "gcr.io/my-project/trainer:1";
  Submit(job);
  Settle();
  const model::Job failed = Get("c");
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_NE(failed.error_message.find("runs no container engine"), std::string::npos)
      << failed.error_message;
  EXPECT_TRUE(backend_.submitted().empty());
}

TEST_F(ExecutorBatchTest, ConcurrentRunsGetPortRangesThatDoNotOverlap) {
  Submit(Distributed("a", 2, 0));  // 3 replicas + the PyTorch port
  Submit(Distributed("b", 1, 0));
  Submit(ValidRuntimeJob("c"));
  Settle();
  ASSERT_EQ(backend_.submitted().size(), 3U);
  std::vector<std::pair<int, int>> ranges;  // [first, end)
  for (const auto& [id, ports] : {std::pair{"a", 4}, std::pair{"b", 3}, std::pair{"c", 2}}) {
    const Result<BatchLaunch> launch = LaunchOf(id);
    ASSERT_TRUE(launch.ok()) << id;
    EXPECT_GE(launch->first_port, kFirstPort);
    EXPECT_LE(launch->first_port + ports, kFirstPort + 100);
    for (const auto& [first, end] : ranges) {
      EXPECT_TRUE(launch->first_port >= end || launch->first_port + ports <= first)
          << id << " at " << launch->first_port << " overlaps [" << first << ", " << end << ")";
    }
    ranges.emplace_back(launch->first_port, launch->first_port + ports);
  }
}

TEST_F(ExecutorBatchTest, UnreachableManagerLeavesTheLastStatesStanding) {
  Submit(ValidRuntimeJob("d"));
  Settle();
  backend_.SetState("1", Phase::kRunning, "RUNNING");
  Poll();
  backend_.FailQueries("slurmctld: connection refused");
  backend_.SetState("1", Phase::kFinished, "NODE_FAIL");
  Poll();
  clock_.Advance(std::chrono::seconds(10));
  Settle();
  EXPECT_EQ(Get("d").state, JobState::kRunning);
  backend_.FailQueries(std::nullopt);
  ManagerEnds("1", "NODE_FAIL");
  EXPECT_EQ(Get("d").state, JobState::kFailed);
}

// The manager's job ended while replicas had written no exit file.
struct EndCase {
  std::string name;
  std::string state;  // "" : the manager no longer knows the job
  std::string reason;
  bool max_running_time = false;
  JobState outcome;
  std::string message;
};

class ExecutorBatchEndTest : public ExecutorBatchTest,
                             public ::testing::WithParamInterface<EndCase> {};

TEST_P(ExecutorBatchEndTest, ManagerJobEndingWithoutExitFilesEndsTheJob) {
  const EndCase& tc = GetParam();
  model::Job job = Distributed("d", 2, 0);
  if (tc.max_running_time) {
    job.training_input->scheduling.emplace();
    job.training_input->scheduling->max_running_time = std::chrono::hours(1);
  }
  Submit(job);
  Settle();
  backend_.SetState("1", Phase::kRunning, "RUNNING");
  Poll();
  TaskExits("d", "worker-replica-1", "exited 0\n");  // a worker that ended: not named below
  WriteFile(Layout("d").batch_output(), "srun: error: n3: task 1: Killed\n");
  Poll();
  if (tc.state.empty()) {
    backend_.Forget("1");
    Poll();
    clock_.Advance(std::chrono::seconds(3));
    Settle();
  } else {
    ManagerEnds("1", tc.state, tc.reason);
  }
  const model::Job ended = Get("d");
  EXPECT_EQ(ended.state, tc.outcome);
  EXPECT_EQ(ended.error_message, tc.message);
  EXPECT_TRUE(backend_.cancelled().empty()) << "nothing left to cancel";
}

INSTANTIATE_TEST_SUITE_P(
    States, ExecutorBatchEndTest,
    ::testing::Values(
        EndCase{.name = "TimeoutWithMaxRunningTime",
                .state = "TIMEOUT",
                .reason = "TimeLimit",
                .max_running_time = true,
                .outcome = JobState::kCancelled,
                .message = "Job cancelled: exceeded maxRunningTime."},
        EndCase{.name = "CancelledOutsideTrainyard",
                .state = "CANCELLED",
                .outcome = JobState::kCancelled,
                .message = "The FakeSlurm job 1 was cancelled outside trainyard."},
        EndCase{.name = "NodeFail",
                .state = "NODE_FAIL",
                .reason = "NodeDown",
                .outcome = JobState::kFailed,
                .message = "The FakeSlurm job 1 ended NODE_FAIL (NodeDown) before its replicas "
                           "master-replica-0, worker-replica-0 ended. srun: error: n3: task 1: "
                           "Killed"},
        EndCase{.name = "TimeoutWithoutMaxRunningTime",
                .state = "TIMEOUT",
                .reason = "None",
                .outcome = JobState::kFailed,
                .message = "The FakeSlurm job 1 ended TIMEOUT before its replicas "
                           "master-replica-0, worker-replica-0 ended. srun: error: n3: task 1: "
                           "Killed"},
        EndCase{.name = "UnknownToTheManager",
                .state = "",
                .outcome = JobState::kFailed,
                .message = "FakeSlurm no longer knows job 1 before its replicas "
                           "master-replica-0, worker-replica-0 ended. srun: error: n3: task 1: "
                           "Killed"}),
    [](const auto& tc) { return tc.param.name; });

TEST_F(ExecutorBatchTest, RunningJobIsTakenOverAfterARestartAndGoesOnWithItsExitFiles) {
  Submit(Distributed("d", 1, 0));
  Settle();
  backend_.SetState("1", Phase::kRunning, "RUNNING");
  Poll();
  ASSERT_EQ(Get("d").state, JobState::kRunning);
  const Result<RunRecord> record = ReadRunRecord(Layout("d").run_record());
  ASSERT_TRUE(record.ok());
  EXPECT_EQ(record->batch_id, "1");
  EXPECT_EQ(record->first_port, kFirstPort);
  TaskExits("d", "master-replica-0", "exited 0\n");  // while no server ran

  ServerRestarts();
  EXPECT_EQ(backend_.submitted().size(), 1U) << "not submitted twice";
  EXPECT_EQ(CountInServiceLog("d", "The trainyard server restarted; it took over FakeSlurm job 1."),
            1);
  EXPECT_EQ(backend_.cancelled(), std::vector<std::string>{"1"});
  ManagerEnds("1", "CANCELLED");
  EXPECT_EQ(Get("d").state, JobState::kSucceeded);
}

// A server without a manager ran the job; the next one has Slurm. It cannot take over local
// processes, so the job ends as an orphan's does, and its replicas, still running here, are killed
// rather than left holding their devices under a FAILED job. Nothing goes to the manager.
TEST_F(ExecutorBatchTest, ALocalServersRunningJobEndsAfterARestartWithAManagerItsReplicasKilled) {
  with_manager_ = false;
  Submit(Distributed("d", 1, 0));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 2U);
  ASSERT_EQ(Get("d").state, JobState::kRunning);
  launcher_.DefaultAdoptAnswer(true);  // both still run when the new server looks

  with_manager_ = true;
  ServerRestarts();
  const model::Job ended = Get("d");
  EXPECT_EQ(ended.state, JobState::kFailed);
  EXPECT_NE(ended.error_message.find("server restarted"), std::string::npos) << ended.error_message;
  for (const FakeLauncher::Started& replica : started) {
    EXPECT_EQ(launcher_.SignalsTo(replica.pid), std::vector<int>{SIGKILL}) << replica.pid;
  }
  EXPECT_TRUE(backend_.submitted().empty());
  EXPECT_TRUE(backend_.cancelled().empty());
}

TEST_F(ExecutorBatchTest, PendingJobIsTakenOverAfterARestartRatherThanRequeued) {
  Submit(Distributed("d", 1, 0));
  Settle();
  ServerRestarts();
  EXPECT_EQ(Get("d").state, JobState::kPreparing);
  EXPECT_EQ(backend_.submitted().size(), 1U);
  EXPECT_TRUE(backend_.cancelled().empty());
  EXPECT_EQ(ReplicaStates("d"), (std::vector<std::string>{"PENDING", "PENDING"}));
  backend_.SetState("1", Phase::kRunning, "RUNNING");
  Poll();
  EXPECT_EQ(Get("d").state, JobState::kRunning);
  EXPECT_EQ(ReplicaStates("d"), (std::vector<std::string>{"RUNNING", "RUNNING"}));
}

TEST_F(ExecutorBatchTest, CancelInProgressGoesOnAfterARestart) {
  Submit(ValidRuntimeJob("d"));
  Settle();
  backend_.SetState("1", Phase::kRunning, "RUNNING");
  Poll();
  executor().Stop(/*stop_replicas=*/false);
  ASSERT_TRUE(controller_->Cancel(kProject, "d").ok());
  ServerRestarts();
  EXPECT_EQ(backend_.cancelled(), std::vector<std::string>{"1"});
  ManagerEnds("1", "CANCELLED");
  const model::Job job = Get("d");
  EXPECT_EQ(job.state, JobState::kCancelled);
  EXPECT_EQ(job.error_message, "Job was cancelled by the user.");
}

// A runtime job tuning DISCRETE x over `values` by grid search.
model::Job Study(std::string id, std::vector<double> values, int parallel) {
  model::Job job = ValidRuntimeJob(std::move(id));
  model::HyperparameterSpec spec;
  spec.goal = model::GoalType::kMaximize;
  spec.algorithm = model::Algorithm::kGridSearch;
  spec.max_trials = static_cast<int>(values.size());
  spec.max_parallel_trials = parallel;
  spec.params.push_back({.parameter_name = "x",
                         .type = model::ParameterType::kDiscrete,
                         .discrete_values = std::move(values)});
  job.training_input->hyperparameters = spec;
  return job;
}

TEST_F(ExecutorBatchTest, EveryTuningTrialIsAManagerJobOfItsOwn) {
  Submit(Study("hp", {1, 2, 3}, 2));
  Settle();
  std::vector<run::ClusterJobRequest> submitted = backend_.submitted();
  ASSERT_EQ(submitted.size(), 2U) << "maxParallelTrials manager jobs";
  for (const std::string trial : {"1", "2"}) {
    const run::ClusterJobRequest& request = submitted[std::stoul(trial) - 1];
    EXPECT_EQ(request.name, "ty-p-hp-trial-" + trial);
    EXPECT_EQ(request.task_command.back(), Layout("hp", trial).launch_file());
    const Result<BatchLaunch> launch = LaunchOf("hp", trial);
    ASSERT_TRUE(launch.ok()) << trial;
    EXPECT_EQ(launch->trial_id, trial);
    EXPECT_EQ(launch->context.trial_id, trial);
    EXPECT_EQ(launch->context.trial_args, std::vector<std::string>{"--x=" + trial});
    EXPECT_EQ(launch->context.hp_metric_dir, Layout("hp", trial).metrics_dir());
  }
  backend_.SetState("1", Phase::kRunning, "RUNNING");
  backend_.SetState("2", Phase::kRunning, "RUNNING");
  Poll();
  WriteFile(Layout("hp", "1").metrics_dir() + "/master-replica-0.metrics",
            R"({"global_step": "20", "timestamp": 1700000000, "trial": "1", )"
            R"("training/hptuning/metric": "0.7"})"
            "\n");
  TaskExits("hp", "master-replica-0", "exited 0\n", "1");
  Settle();
  EXPECT_TRUE(backend_.cancelled().empty()) << "its only replica ended: the task ends the job";
  const model::Job job = Get("hp");
  ASSERT_TRUE(job.training_output.has_value());
  const auto trial = std::find_if(
      job.training_output->trials.begin(), job.training_output->trials.end(),
      [](const model::HyperparameterOutput& output) { return output.trial_id == "1"; });
  ASSERT_NE(trial, job.training_output->trials.end());
  EXPECT_EQ(trial->state, JobState::kSucceeded);
  ASSERT_TRUE(trial->final_metric.has_value());
  EXPECT_EQ(trial->final_metric->objective_value, 0.7);
  submitted = backend_.submitted();
  ASSERT_EQ(submitted.size(), 3U) << "the next trial takes the freed place";
  EXPECT_EQ(submitted[2].name, "ty-p-hp-trial-3");
}

}  // namespace
}  // namespace trainyard::control
