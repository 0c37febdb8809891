// The executor's lifecycle with a fake clock, a fake launcher and a fake stager: every rule of
// control/executor.h and control/reconcile/replica_policy.h observed through the stored job.
#include "control/executor.h"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "base/time_format.h"
#include "control/executor_fixture.h"
#include "control/job_layout.h"

namespace trainyard::control {
namespace {

TEST_F(ExecutorTest, SingleReplicaJobRunsToSucceeded) {
  Submit(ValidRuntimeJob("one"));
  Settle();
  EXPECT_EQ(Get("one").state, JobState::kRunning);
  ASSERT_EQ(stager_.requests.size(), 1U);
  EXPECT_EQ(stager_.requests[0].package_uris, ValidRuntimeJob().training_input->package_uris);
  EXPECT_TRUE(stager_.released.empty()) << "the running job still uses its packages";
  ASSERT_EQ(launcher_.started().size(), 1U);
  const FakeLauncher::Started master = launcher_.started()[0];
  EXPECT_EQ(master.spec.argv[0], "/usr/bin/python3");
  EXPECT_TRUE(master.spec.working_dir.ends_with("/jobs/p/one/master-replica-0"));
  EXPECT_TRUE(std::filesystem::is_directory(dir_.path() / "buckets/my-bucket/output"));

  Exit(master.pid, Exited(0));
  const model::Job done = Get("one");
  EXPECT_EQ(done.state, JobState::kSucceeded);
  EXPECT_TRUE(done.start_time.has_value());
  EXPECT_TRUE(done.end_time.has_value());
  EXPECT_TRUE(done.error_message.empty());
  ASSERT_TRUE(done.training_output.has_value());
  // What the replica left in its process group is killed when the job ends.
  EXPECT_EQ(launcher_.SignalsTo(master.pid), std::vector<int>{SIGKILL});
  // Its packages are released (a cache may evict them).
  EXPECT_EQ(stager_.released, std::vector<std::string>{stager_.requests[0].target_dir});
}

TEST_F(ExecutorTest, MasterSuccessStopsTheOtherReplicasThenSucceeds) {
  Submit(Distributed("dist", 2, 1));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 4U);  // master, 2 workers, 1 ps
  Exit(started[0].pid, Exited(0));
  EXPECT_EQ(Get("dist").state, JobState::kRunning) << "still stopping the others";
  for (std::size_t i = 1; i < started.size(); ++i) {
    EXPECT_EQ(launcher_.SignalsTo(started[i].pid), std::vector<int>{SIGTERM});
  }
  for (std::size_t i = 1; i < started.size(); ++i) {
    executor().OnExit(started[i].pid, Killed(SIGTERM));
  }
  Settle();
  EXPECT_EQ(Get("dist").state, JobState::kSucceeded);
}

TEST_F(ExecutorTest, ReplicasThatIgnoreSigtermGetSigkillAfterTheGracePeriod) {
  Submit(Distributed("stubborn", 0, 1));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 2U);
  Exit(started[0].pid, Exited(0));
  clock_.Advance(std::chrono::seconds(9));
  Settle();
  EXPECT_EQ(launcher_.SignalsTo(started[1].pid), std::vector<int>{SIGTERM});
  clock_.Advance(std::chrono::seconds(2));
  Settle();
  EXPECT_EQ(launcher_.SignalsTo(started[1].pid), (std::vector<int>{SIGTERM, SIGKILL}));
  EXPECT_EQ(Get("stubborn").state, JobState::kRunning);
  Exit(started[1].pid, Killed(SIGKILL));
  EXPECT_EQ(Get("stubborn").state, JobState::kSucceeded);
}

TEST_F(ExecutorTest, FailingWorkerFailsTheJobWithItsStderrTail) {
  Submit(Distributed("bad", 2, 0));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 3U);
  Output(started[2].pid, logs::Stream::kStderr,
         {"Traceback (most recent call last):", "  File \"task.py\""});
  Output(started[2].pid, logs::Stream::kStdout, {"epoch 3"});
  Output(started[2].pid, logs::Stream::kStderr, {"ValueError: bad input"});
  Exit(started[2].pid, Exited(1));
  for (std::size_t i = 0; i < 2; ++i) {
    executor().OnExit(started[i].pid, Killed(SIGTERM));
  }
  Settle();
  const model::Job job = Get("bad");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.error_message,
            "The replica worker 1 exited with a non-zero status of 1. Termination reason: Error. "
            "Traceback (most recent call last):\n  File \"task.py\"\nValueError: bad input");
}

TEST_F(ExecutorTest, ReplicaKilledBySignalIsRestartedWithBackoffThenGivenUpOn) {
  Submit(Distributed("flaky", 1, 0));
  Settle();
  int worker = launcher_.started()[1].pid;
  const run::ProcessSpec spec = launcher_.started()[1].spec;
  const std::chrono::seconds backoffs[] = {std::chrono::seconds(1), std::chrono::seconds(2),
                                           std::chrono::seconds(4)};
  for (std::chrono::seconds backoff : backoffs) {
    const std::size_t before = launcher_.started().size();
    Exit(worker, Killed(SIGKILL));
    clock_.Advance(backoff - std::chrono::milliseconds(1));
    Settle();
    EXPECT_EQ(launcher_.started().size(), before) << "not before the backoff";
    clock_.Advance(std::chrono::milliseconds(1));
    Settle();
    ASSERT_EQ(launcher_.started().size(), before + 1);
    const FakeLauncher::Started restarted = launcher_.started().back();
    EXPECT_EQ(restarted.spec.argv, spec.argv);
    EXPECT_EQ(restarted.spec.env, spec.env);
    worker = restarted.pid;
    EXPECT_EQ(Get("flaky").state, JobState::kRunning);
  }
  Exit(worker, Killed(SIGKILL));
  Exit(launcher_.started()[0].pid, Killed(SIGTERM));
  const model::Job job = Get("flaky");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.error_message,
            "The replica worker 0 was terminated by signal 9 (SIGKILL) and was restarted 3 times; "
            "giving up.");
}

TEST_F(ExecutorTest, CancelStopsTheReplicasThenCancels) {
  Submit(Distributed("cancel_me", 1, 0));
  Settle();
  ASSERT_TRUE(controller_->Cancel(kProject, "cancel_me").ok());
  EXPECT_EQ(Get("cancel_me").state, JobState::kCancelling);
  Settle();
  for (const FakeLauncher::Started& started : launcher_.started()) {
    EXPECT_EQ(launcher_.SignalsTo(started.pid), std::vector<int>{SIGTERM});
    executor().OnExit(started.pid, Killed(SIGTERM));
  }
  Settle();
  const model::Job job = Get("cancel_me");
  EXPECT_EQ(job.state, JobState::kCancelled);
  EXPECT_EQ(job.error_message, "Job was cancelled by the user.");
}

TEST_F(ExecutorTest, CancelWhileStagingStartsNothing) {
  defer_staging_ = true;
  Submit(ValidRuntimeJob("early"));
  Settle();
  EXPECT_EQ(Get("early").state, JobState::kPreparing);
  ASSERT_TRUE(controller_->Cancel(kProject, "early").ok());
  Settle();
  ASSERT_EQ(deferred_.size(), 1U);
  deferred_[0]();
  // The install was told to stop (its stager kills it) and reports CANCELLED: dropped.
  ASSERT_EQ(stager_.requests.size(), 1U);
  EXPECT_TRUE(stager_.requests[0].stop.stop_requested());
  Settle();
  EXPECT_EQ(Get("early").state, JobState::kCancelled);
  EXPECT_TRUE(launcher_.started().empty());
}

// Staging runs with the job's pid file, so that a restarted server finds a killed one's install;
// it is not stopped while the job waits for it, and is when the executor stops.
TEST_F(ExecutorTest, StagingIsRecordedAndStoppedWithTheExecutor) {
  defer_staging_ = true;
  Submit(ValidRuntimeJob("staging"));
  Settle();
  ASSERT_EQ(deferred_.size(), 1U);
  executor().Stop(/*stop_replicas=*/false);
  stager_.result = Status::FromCode(Code::kCancelled, "Installing packages was cancelled.");
  deferred_[0]();
  ASSERT_EQ(stager_.requests.size(), 1U);
  EXPECT_TRUE(stager_.requests[0].stop.stop_requested());
  EXPECT_EQ(stager_.requests[0].pid_file,
            (dir_.path() / "jobs" / kProject / "staging" / "run" / "staging.pid").string());
  EXPECT_EQ(Get("staging").state, JobState::kPreparing) << "left to recovery";
}

TEST_F(ExecutorTest, StagingThatIsStillWantedIsNotStopped) {
  defer_staging_ = true;
  Submit(ValidRuntimeJob("wanted"));
  Settle();
  Settle();
  ASSERT_EQ(deferred_.size(), 1U);
  deferred_[0]();
  ASSERT_EQ(stager_.requests.size(), 1U);
  EXPECT_FALSE(stager_.requests[0].stop.stop_requested());
}

TEST_F(ExecutorTest, StagingFailureFailsTheJobWithPipsMessage) {
  stager_.result = Status::FailedPrecondition("Failed to install packages: ERROR: bad sdist");
  Submit(ValidRuntimeJob("nopkg"));
  Settle();
  const model::Job job = Get("nopkg");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.error_message, "Failed to install packages: ERROR: bad sdist");
  EXPECT_TRUE(job.end_time.has_value());
  EXPECT_TRUE(launcher_.started().empty());
}

TEST_F(ExecutorTest, ProgramThatCannotStartFailsTheJob) {
  launcher_.FailProgram("/usr/bin/python3");
  Submit(ValidRuntimeJob("nostart"));
  Settle();
  const model::Job job = Get("nostart");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(job.error_message,
            "The replica master 0 could not be started: Cannot run /usr/bin/python3: not found on "
            "PATH");
}

TEST_F(ExecutorTest, JobThatCanNeverFitFailsAtOnceSayingWhatIsMissing) {
  gpus_ = 0;
  Submit(WithGpus(ValidRuntimeJob("huge"), 4));
  Settle();
  const model::Job job = Get("huge");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_NE(job.error_message.find("4 × NVIDIA_TESLA_T4"), std::string::npos) << job.error_message;
  EXPECT_TRUE(job.start_time.has_value());
  EXPECT_TRUE(job.end_time.has_value());
}

TEST_F(ExecutorTest, GpusAreExclusiveAndTheNextJobWaitsItsTurn) {
  Submit(WithGpus(ValidRuntimeJob("first"), 2));
  clock_.Advance(std::chrono::milliseconds(1));
  Submit(WithGpus(ValidRuntimeJob("second"), 2));
  Settle();
  EXPECT_EQ(Get("first").state, JobState::kRunning);
  const model::Job waiting = Get("second");
  EXPECT_EQ(waiting.state, JobState::kQueued);
  EXPECT_EQ(waiting.job_position, 1);
  ASSERT_EQ(launcher_.started().size(), 1U);
  const FakeLauncher::Started first = launcher_.started()[0];
  Exit(first.pid, Exited(0));
  Settle();
  EXPECT_EQ(Get("second").state, JobState::kRunning);
  EXPECT_EQ(Get("second").job_position, 0);
}

TEST_F(ExecutorTest, HigherPriorityStartsFirst) {
  Submit(WithGpus(ValidRuntimeJob("low"), 2));
  clock_.Advance(std::chrono::milliseconds(1));
  model::Job high = WithGpus(ValidRuntimeJob("high"), 2);
  high.training_input->scheduling.emplace();
  high.training_input->scheduling->priority = 10;
  Submit(high);
  Settle();
  EXPECT_EQ(Get("high").state, JobState::kRunning);
  EXPECT_EQ(Get("low").state, JobState::kQueued);
}

TEST_F(ExecutorTest, MaxRunningTimeCancelsTheJob) {
  model::Job job = ValidRuntimeJob("slow");
  job.training_input->scheduling.emplace();
  job.training_input->scheduling->max_running_time = std::chrono::seconds(60);
  Submit(job);
  Settle();
  clock_.Advance(std::chrono::seconds(61));
  Settle();
  EXPECT_EQ(Get("slow").state, JobState::kCancelling);
  Exit(launcher_.started()[0].pid, Killed(SIGTERM));
  const model::Job done = Get("slow");
  EXPECT_EQ(done.state, JobState::kCancelled);
  EXPECT_EQ(done.error_message, "Job cancelled: exceeded maxRunningTime.");
}

TEST_F(ExecutorTest, MaxWaitTimeCancelsAJobThatWaitedTooLong) {
  Submit(WithGpus(ValidRuntimeJob("holder"), 2));
  clock_.Advance(std::chrono::milliseconds(1));
  model::Job waiter = WithGpus(ValidRuntimeJob("waiter"), 1);
  waiter.training_input->scheduling.emplace();
  waiter.training_input->scheduling->max_wait_time = std::chrono::seconds(1800);
  Submit(waiter);
  Settle();
  EXPECT_EQ(Get("waiter").state, JobState::kQueued);
  clock_.Advance(std::chrono::seconds(1801));
  Settle();
  const model::Job job = Get("waiter");
  EXPECT_EQ(job.state, JobState::kCancelled);
  EXPECT_EQ(job.error_message, "Job cancelled: exceeded maxWaitTime.");
}

TEST_F(ExecutorTest, RecoveryRequeuesPreparingAndFailsRunningJobs) {
  Submit(ValidRuntimeJob("was_running"));
  Submit(ValidRuntimeJob("was_preparing"));
  SetStoredState("was_running", JobState::kRunning);
  SetStoredState("was_preparing", JobState::kPreparing);
  executor().Recover();
  EXPECT_EQ(Get("was_preparing").state, JobState::kQueued);
  const model::Job failed = Get("was_running");
  EXPECT_EQ(failed.state, JobState::kFailed);
  EXPECT_NE(failed.error_message.find("server restarted"), std::string::npos);
}

// The server dies (nothing is stopped) and a new executor starts on the same data dir.
class ExecutorRecoveryTest : public ExecutorTest {
 protected:
  void ServerRestarts() {
    executor().Stop(/*stop_replicas=*/false);
    executor_.reset();
    executor().Recover();
    Settle();
  }

  void WriteExitFile(const run::ProcessSpec& spec, std::string_view text) {
    std::filesystem::create_directories(std::filesystem::path(spec.exit_path).parent_path());
    std::ofstream(spec.exit_path) << text;
  }
};

TEST_F(ExecutorRecoveryTest, RunningReplicasAreAdoptedAndTheJobGoesOn) {
  Submit(Distributed("d", 1, 0));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 2U);
  launcher_.DefaultAdoptAnswer(true);

  ServerRestarts();
  EXPECT_EQ(Get("d").state, JobState::kRunning);
  ASSERT_EQ(launcher_.adopted().size(), 2U);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ(launcher_.adopted()[i].pid, started[i].pid);
    EXPECT_EQ(launcher_.adopted()[i].spec.env, started[i].spec.env);
  }
  EXPECT_EQ(launcher_.started().size(), 2U) << "nothing started twice";
  const std::optional<std::vector<ReplicaInfo>> replicas = executor().Replicas(kProject, "d");
  ASSERT_TRUE(replicas.has_value());
  ASSERT_EQ(replicas->size(), 2U);
  EXPECT_EQ((*replicas)[0].state, "RUNNING");

  Exit(started[0].pid, Exited(0));
  EXPECT_EQ(launcher_.SignalsTo(started[1].pid), std::vector<int>{SIGTERM});
  Exit(started[1].pid, Killed(SIGTERM));
  EXPECT_EQ(Get("d").state, JobState::kSucceeded);
}

TEST_F(ExecutorRecoveryTest, MasterThatFinishedWhileNoServerRanSucceedsTheJob) {
  Submit(Distributed("d", 1, 0));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  WriteExitFile(started[0].spec, "exited 0\n");
  launcher_.AdoptAnswer(started[0].pid, false);
  launcher_.AdoptAnswer(started[1].pid, true);

  ServerRestarts();
  EXPECT_EQ(launcher_.SignalsTo(started[1].pid), std::vector<int>{SIGTERM});
  Exit(started[1].pid, Killed(SIGTERM));
  EXPECT_EQ(Get("d").state, JobState::kSucceeded);
}

TEST_F(ExecutorRecoveryTest, ReplicaKilledWhileNoServerRanIsRestarted) {
  Submit(Distributed("d", 1, 0));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  launcher_.AdoptAnswer(started[0].pid, true);
  launcher_.AdoptAnswer(started[1].pid, false);  // gone, and no exit file: SIGKILLed

  ServerRestarts();
  clock_.Advance(std::chrono::seconds(1));
  Settle();
  ASSERT_EQ(launcher_.started().size(), 3U);
  EXPECT_EQ(launcher_.started()[2].spec.env, started[1].spec.env);
  EXPECT_EQ(Get("d").state, JobState::kRunning);
  EXPECT_EQ(executor().Replicas(kProject, "d")->at(1).restarts, 1);
}

// The server died after starting and recording every replica but before it stored RUNNING (the
// kill test saw a trainer run to its end twice): the job is taken over, not started again, and
// its master's recorded exit 0 succeeds it.
TEST_F(ExecutorRecoveryTest, PreparingJobWhoseEveryReplicaStartedIsTakenOverNotStartedAgain) {
  Submit(Distributed("d", 1, 0));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  ASSERT_EQ(started.size(), 2U);
  SetStoredState("d", JobState::kPreparing);
  WriteExitFile(started[0].spec, "exited 0\n");
  launcher_.AdoptAnswer(started[0].pid, false);
  launcher_.AdoptAnswer(started[1].pid, true);

  ServerRestarts();
  EXPECT_EQ(launcher_.started().size(), 2U) << "nothing started twice";
  EXPECT_EQ(launcher_.SignalsTo(started[0].pid), std::vector<int>{});
  EXPECT_EQ(launcher_.SignalsTo(started[1].pid), std::vector<int>{SIGTERM});
  Exit(started[1].pid, Killed(SIGTERM));
  EXPECT_EQ(Get("d").state, JobState::kSucceeded);
}

// The server died between starting a replica's supervisor and recording its pid (issue #17's
// kill test saw it): found by its command line, it is killed with a PREPARING job that goes back
// to the queue, and adopted in place of the recorded pid of a replica it restarted.
TEST_F(ExecutorRecoveryTest, PreparingJobsUnrecordedReplicaIsKilledBeforeTheJobIsRequeued) {
  Submit(ValidRuntimeJob("j"));
  SetStoredState("j", JobState::kPreparing);
  launcher_.StartedElsewhere(
      JobLayout(dir_.path().string(), std::string(kProject), "j").exit_path("master-replica-0"),
      4242);

  executor().Recover();
  EXPECT_EQ(launcher_.SignalsTo(4242), std::vector<int>{SIGKILL});
  EXPECT_EQ(Get("j").state, JobState::kQueued);
}

TEST_F(ExecutorRecoveryTest, RestartWhosePidWasNotRecordedIsAdoptedNotStartedAgain) {
  Submit(Distributed("d", 1, 0));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  launcher_.AdoptAnswer(started[0].pid, true);
  launcher_.AdoptAnswer(started[1].pid, false);  // the recorded one ended, and was restarted
  launcher_.StartedElsewhere(started[1].spec.exit_path, 7777);
  launcher_.AdoptAnswer(7777, true);

  ServerRestarts();
  clock_.Advance(std::chrono::seconds(1));
  Settle();
  EXPECT_EQ(launcher_.started().size(), 2U) << "nothing started twice";
  Exit(started[0].pid, Exited(0));
  EXPECT_EQ(launcher_.SignalsTo(7777), std::vector<int>{SIGTERM});
  Exit(7777, Killed(SIGTERM));
  EXPECT_EQ(Get("d").state, JobState::kSucceeded);
}

TEST_F(ExecutorRecoveryTest, CancelInProgressGoesOnStopping) {
  Submit(Distributed("d", 1, 0));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  launcher_.DefaultAdoptAnswer(true);
  ASSERT_TRUE(controller_->Cancel(kProject, "d").ok());
  ASSERT_EQ(Get("d").state, JobState::kCancelling);

  ServerRestarts();
  for (const FakeLauncher::Started& replica : started) {
    EXPECT_EQ(launcher_.SignalsTo(replica.pid).back(), SIGTERM);
    executor().OnExit(replica.pid, Killed(SIGTERM));
  }
  Settle();
  EXPECT_EQ(Get("d").state, JobState::kCancelled);
  EXPECT_EQ(launcher_.started().size(), 2U) << "a stopped replica is not restarted";
}

// Issue #31: `endTime` and the ML units come from when the replicas ended, as their exit files
// record it, not from when the server noticed: a one-hour job (n1-standard-4: 1 ML unit an hour)
// that ended while the server was down for two more hours, and one that ended while watched.
TEST_F(ExecutorRecoveryTest, EndTimeAndMlUnitsAreTheRecordedExitsNotTheServersDowntime) {
  struct Case {
    std::string name;
    bool server_down;  // the exit was found by the restarted server, else reported to it
  };
  for (const Case& c : {Case{"found_after_a_restart", true}, Case{"reported_later", false}}) {
    SCOPED_TRACE(c.name);
    Submit(ValidRuntimeJob(c.name));
    clock_.Advance(std::chrono::seconds(1));  // the queue's next scan
    Settle();
    const FakeLauncher::Started master = launcher_.started().back();
    ASSERT_EQ(Get(c.name).state, JobState::kRunning);
    const WallTime start = *Get(c.name).start_time;
    const WallTime ended = start + std::chrono::hours(1);
    clock_.Advance(std::chrono::hours(3));
    if (c.server_down) {
      WriteExitFile(master.spec, "exited 0\nended " + FormatTimestamp(ended) + "\n");
      launcher_.AdoptAnswer(master.pid, false);
      ServerRestarts();
    } else {  // adopted earlier; its supervisor's exit file was read when it ended
      Exit(master.pid, ExitStatus{.code = 0, .ended = ended});
    }
    const model::Job job = Get(c.name);
    EXPECT_EQ(job.state, JobState::kSucceeded);
    EXPECT_EQ(job.end_time, ended);
    ASSERT_TRUE(job.training_output.has_value());
    EXPECT_DOUBLE_EQ(job.training_output->consumed_ml_units, 1.0);
  }
}

// Without a recorded time (a replica reaped by this server, or an exit file of an older
// supervisor), the end is when the server handled the exit.
TEST_F(ExecutorRecoveryTest, WithoutARecordedTimeTheEndIsWhenTheExitWasHandled) {
  Submit(ValidRuntimeJob("j"));
  Settle();
  const FakeLauncher::Started master = launcher_.started()[0];
  const WallTime start = *Get("j").start_time;
  clock_.Advance(std::chrono::minutes(30));
  WriteExitFile(master.spec, "exited 0\n");
  launcher_.AdoptAnswer(master.pid, false);
  ServerRestarts();
  const model::Job job = Get("j");
  EXPECT_EQ(job.state, JobState::kSucceeded);
  EXPECT_EQ(job.end_time, start + std::chrono::minutes(30));
  EXPECT_DOUBLE_EQ(job.training_output->consumed_ml_units, 0.5);
}

TEST_F(ExecutorRecoveryTest, UnknowableReplicaFailsTheJobRatherThanRisksADuplicate) {
  Submit(Distributed("d", 1, 0));
  Settle();
  launcher_.DefaultAdoptAnswer(Status::Internal("pidfd_open: too many open files"));

  ServerRestarts();
  EXPECT_EQ(Get("d").state, JobState::kFailed);
  EXPECT_EQ(launcher_.started().size(), 2U);
}

// A replica that ended, where whether a restart of it runs cannot be told (a /proc file that
// could not be read): the job fails rather than risk running it twice.
TEST_F(ExecutorRecoveryTest, UnknowableRestartFailsTheJobRatherThanRisksADuplicate) {
  Submit(Distributed("d", 1, 0));
  Settle();
  const std::vector<FakeLauncher::Started> started = launcher_.started();
  launcher_.AdoptAnswer(started[0].pid, true);
  launcher_.AdoptAnswer(started[1].pid, false);
  launcher_.FindStartedFails(Status::Internal("Cannot tell whether a replica runs: EIO"));

  ServerRestarts();
  EXPECT_EQ(Get("d").state, JobState::kFailed);
  EXPECT_EQ(launcher_.started().size(), 2U);
}

}  // namespace
}  // namespace trainyard::control
