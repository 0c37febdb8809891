// Hyperparameter-tuning jobs in the executor (control/executor_study.cc), with the fake clock,
// launcher and stager: trials started with their flags and variables, metrics read from each
// trial's master file (every metric of a multi-metric study), maxFailedTrials, the median
// stopping rule, cancel, resume and recovery, all observed through the stored job.
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "control/executor_fixture.h"
#include "control/job_layout.h"

namespace trainyard::control {
namespace {

// A runtime job tuning one DISCRETE parameter x over `values` by grid search.
model::Job Study(std::string id, std::vector<double> values, int max_trials, int parallel,
                 model::GoalType goal = model::GoalType::kMaximize) {
  model::Job job = ValidRuntimeJob(std::move(id));
  model::HyperparameterSpec spec;
  spec.goal = goal;
  spec.algorithm = model::Algorithm::kGridSearch;
  spec.max_trials = max_trials;
  spec.max_parallel_trials = parallel;
  spec.params.push_back({.parameter_name = "x",
                         .type = model::ParameterType::kDiscrete,
                         .discrete_values = std::move(values)});
  job.training_input->hyperparameters = spec;
  return job;
}

std::string EnvOf(const run::ProcessSpec& spec, std::string_view name) {
  for (const auto& [key, value] : spec.env) {
    if (key == name) {
      return value;
    }
  }
  return "<unset>";
}

bool HasArg(const run::ProcessSpec& spec, std::string_view arg) {
  return std::find(spec.argv.begin(), spec.argv.end(), arg) != spec.argv.end();
}

class ExecutorStudyTest : public ExecutorTest {
 protected:
  // The process started for trial `trial` (single-replica jobs: its master).
  FakeLauncher::Started Trial(std::string_view trial) {
    for (const FakeLauncher::Started& started : launcher_.started()) {
      if (EnvOf(started.spec, "CLOUD_ML_TRIAL_ID") == trial) {
        return started;
      }
    }
    ADD_FAILURE() << "no process for trial " << trial;
    return {};
  }

  // Writes the hypertune file of `trial`'s master as the library does: (step, value) pairs.
  void Report(std::string_view trial, const std::vector<std::pair<int, double>>& points,
              std::string_view tag = "training/hptuning/metric") {
    const std::string path = EnvOf(Trial(trial).spec, "CLOUD_ML_HP_METRIC_FILE");
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream file(path, std::ios::trunc);
    double timestamp = 1700000000;
    for (const auto& [step, value] : points) {
      file << fmt::format(R"({{"global_step": "{}", "timestamp": {}, "trial": "{}", "{}": "{}"}})",
                          step, timestamp++, trial, tag, value)
           << "\n";
    }
  }

  const model::HyperparameterOutput& TrialOf(const model::Job& job, std::string_view id) {
    static const model::HyperparameterOutput kMissing;
    for (const model::HyperparameterOutput& trial : job.training_output->trials) {
      if (trial.trial_id == id) {
        return trial;
      }
    }
    ADD_FAILURE() << "no trial " << id;
    return kMissing;
  }
};

TEST_F(ExecutorStudyTest, TrialsRunInParallelWithTheirFlagsVariablesAndFiles) {
  Submit(Study("hp", {1, 2, 3}, 3, 2));
  Settle();
  ASSERT_EQ(launcher_.started().size(), 2U) << "maxParallelTrials trials at once";
  for (const std::string trial : {"1", "2"}) {
    const run::ProcessSpec spec = Trial(trial).spec;
    EXPECT_TRUE(HasArg(spec, "--x=" + trial)) << "grid order, one flag per parameter";
    EXPECT_TRUE(spec.working_dir.ends_with("/jobs/p/hp/trial-" + trial + "/master-replica-0"));
    EXPECT_TRUE(
        spec.log_path.ends_with("/jobs/p/hp/logs/trial-" + trial + "/master-replica-0.log"));
    EXPECT_TRUE(
        EnvOf(spec, "CLOUD_ML_HP_METRIC_FILE")
            .ends_with("/jobs/p/hp/trial-" + trial + "/hypertune/master-replica-0.metrics"));
    EXPECT_EQ(EnvOf(spec, "CLOUD_ML_HP_METRIC_TAG"), "training/hptuning/metric");
    EXPECT_NE(EnvOf(spec, "TF_CONFIG").find(R"("trial":")" + trial + "\""), std::string::npos);
  }
  EXPECT_EQ(stager_.requests.size(), 1U) << "packages are staged once per job";
  model::Job job = Get("hp");
  EXPECT_EQ(job.state, JobState::kRunning);
  ASSERT_TRUE(job.training_output.has_value());
  EXPECT_TRUE(job.training_output->is_hyperparameter_tuning_job);
  EXPECT_EQ(job.training_output->hyperparameter_metric_tag, "training/hptuning/metric");
  ASSERT_EQ(job.training_output->trials.size(), 2U);
  EXPECT_EQ(TrialOf(job, "2").hyperparameters.at("x"), "2");
  EXPECT_EQ(TrialOf(job, "2").state, JobState::kRunning);

  Report("1", {{10, 0.5}, {20, 0.7}});
  Exit(Trial("1").pid, Exited(0));
  job = Get("hp");
  EXPECT_EQ(TrialOf(job, "1").state, JobState::kSucceeded);
  ASSERT_TRUE(TrialOf(job, "1").final_metric.has_value());
  EXPECT_EQ(TrialOf(job, "1").final_metric->objective_value, 0.7);
  EXPECT_EQ(TrialOf(job, "1").final_metric->training_step, 20);
  EXPECT_EQ(TrialOf(job, "1").all_metrics.size(), 2U);
  EXPECT_EQ(job.training_output->completed_trial_count, 1);
  ASSERT_EQ(launcher_.started().size(), 3U) << "the freed slot runs the grid's last point";
  EXPECT_TRUE(HasArg(Trial("3").spec, "--x=3"));

  Report("2", {{20, 0.9}});
  Exit(Trial("2").pid, Exited(0));
  Report("3", {{20, 0.8}});
  Exit(Trial("3").pid, Exited(0));
  job = Get("hp");
  EXPECT_EQ(job.state, JobState::kSucceeded);
  EXPECT_EQ(job.training_output->completed_trial_count, 3);
  std::vector<std::string> order;
  for (const auto& trial : job.training_output->trials) {
    order.push_back(trial.trial_id);
  }
  EXPECT_EQ(order, (std::vector<std::string>{"2", "3", "1"})) << "best objective first";
  EXPECT_EQ(launcher_.started().size(), 3U);
}

TEST_F(ExecutorStudyTest, GridSmallerThanMaxTrialsEndsWhenExhausted) {
  Submit(Study("grid", {1, 2}, 5, 1));
  Settle();
  Report("1", {{1, 1.0}});
  Exit(Trial("1").pid, Exited(0));
  EXPECT_TRUE(stager_.released.empty()) << "the trials share the study's packages";
  Report("2", {{1, 2.0}});
  Exit(Trial("2").pid, Exited(0));
  const model::Job job = Get("grid");
  EXPECT_EQ(job.state, JobState::kSucceeded);
  EXPECT_EQ(job.training_output->trials.size(), 2U) << "every grid point exactly once";
  ASSERT_EQ(stager_.requests.size(), 1U);
  EXPECT_EQ(stager_.released, std::vector<std::string>{stager_.requests[0].target_dir});
}

TEST_F(ExecutorStudyTest, FailedTrialsReachingMaxFailedTrialsFailTheJob) {
  model::Job study = Study("failing", {1, 2, 3, 4}, 4, 1);
  study.training_input->hyperparameters->max_failed_trials = 2;
  Submit(study);
  Settle();
  Exit(Trial("1").pid, Exited(1));
  model::Job job = Get("failing");
  EXPECT_EQ(job.state, JobState::kRunning);
  EXPECT_EQ(TrialOf(job, "1").state, JobState::kFailed);
  EXPECT_FALSE(TrialOf(job, "1").final_metric.has_value());
  Exit(Trial("2").pid, Exited(3));
  job = Get("failing");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_NE(job.error_message.find("2 trials failed, which reaches maxFailedTrials (2)"),
            std::string::npos)
      << job.error_message;
  EXPECT_NE(job.error_message.find("trial 2: The replica master 0 exited with a non-zero status "
                                   "of 3"),
            std::string::npos)
      << job.error_message;
  EXPECT_EQ(launcher_.started().size(), 2U);
}

TEST_F(ExecutorStudyTest, TrialsWithoutTheMetricFailTheJobSayingHowToReportIt) {
  Submit(Study("silent", {1}, 1, 1));
  Settle();
  Report("1", {{5, 0.5}}, "some_other_tag");
  Exit(Trial("1").pid, Exited(0));
  const model::Job job = Get("silent");
  EXPECT_EQ(job.state, JobState::kFailed);
  EXPECT_EQ(TrialOf(job, "1").state, JobState::kSucceeded);
  EXPECT_NE(job.error_message.find("No trial reported the hyperparameter metric "
                                   "training/hptuning/metric"),
            std::string::npos)
      << job.error_message;
}

// A study of two metrics (Vertex AI's studySpec.metrics): the trainer reports each under its own
// tag; a trial is measured on both, and one that misses a metric is handled as one that misses
// the study's one metric: SUCCEEDED, without a finalMetric.
TEST_F(ExecutorStudyTest, ATwoMetricTrialIsMeasuredOnBothOrNotAtAll) {
  model::Job study = Study("two", {1, 2}, 2, 2);
  study.training_input->hyperparameters->hyperparameter_metric_tag = "acc";
  study.extras.emplace().extra_metrics = {{.id = "loss", .goal = model::GoalType::kMinimize}};
  Submit(study);
  Settle();
  ASSERT_EQ(launcher_.started().size(), 2U);
  const struct {
    std::string trial;
    std::vector<std::pair<std::string, double>> reports;  // in file order, steps 1, 2, …
  } trials[] = {
      {"1", {{"acc", 0.5}, {"loss", 0.75}, {"acc", 0.625}, {"loss", 0.25}}},
      {"2", {{"acc", 0.875}}},
  };
  for (const auto& t : trials) {
    const std::string path = EnvOf(Trial(t.trial).spec, "CLOUD_ML_HP_METRIC_FILE");
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    std::ofstream file(path, std::ios::trunc);
    for (std::size_t step = 1; step <= t.reports.size(); ++step) {
      const auto& [tag, value] = t.reports[step - 1];
      file << fmt::format(R"({{"global_step": "{}", "timestamp": {}, "trial": "{}", "{}": "{}"}})",
                          step, 1700000000 + step, t.trial, tag, value)
           << "\n";
    }
    file.close();
    Exit(Trial(t.trial).pid, Exited(0));
  }
  const model::Job job = Get("two");
  EXPECT_EQ(job.state, JobState::kSucceeded) << job.error_message;
  const model::HyperparameterOutput& measured = TrialOf(job, "1");
  ASSERT_TRUE(measured.final_metric.has_value());
  EXPECT_EQ(measured.final_metric->objective_value, 0.625);
  EXPECT_EQ(measured.final_metric->training_step, 3);
  EXPECT_EQ(TrialOf(job, "2").state, JobState::kSucceeded);
  EXPECT_FALSE(TrialOf(job, "2").final_metric.has_value());
  ASSERT_TRUE(job.extras.has_value());
  EXPECT_EQ(job.extras->trial_measurements,
            (std::vector<model::TrialMeasurement>{{.trial_id = "1", .values = {0.25}}}));
}

TEST_F(ExecutorStudyTest, MedianRuleStopsATrialWorseThanTheCompletedOnes) {
  model::Job study = Study("early", {1, 2, 3, 4}, 4, 1, model::GoalType::kMinimize);
  study.training_input->hyperparameters->enable_trial_early_stopping = true;
  Submit(study);
  Settle();
  for (const std::string trial : {"1", "2", "3"}) {
    const double x = std::stod(trial);
    Report(trial, {{1, x}, {2, x}, {3, x}});
    Exit(Trial(trial).pid, Exited(0));
  }
  const int fourth = Trial("4").pid;
  Report("4", {{1, 4.0}, {2, 4.0}});
  clock_.Advance(std::chrono::seconds(2));
  Settle();
  EXPECT_EQ(launcher_.SignalsTo(fourth), std::vector<int>{SIGTERM})
      << "4 is worse than the median running average (2) at step 2";
  Exit(fourth, Killed(SIGTERM));
  const model::Job job = Get("early");
  EXPECT_EQ(job.state, JobState::kSucceeded);
  EXPECT_TRUE(TrialOf(job, "4").is_trial_stopped_early);
  EXPECT_EQ(TrialOf(job, "4").state, JobState::kSucceeded);
  EXPECT_FALSE(TrialOf(job, "3").is_trial_stopped_early);
}

TEST_F(ExecutorStudyTest, CancelStopsEveryRunningTrial) {
  Submit(Study("cancelled", {1, 2, 3}, 3, 3));
  Settle();
  ASSERT_EQ(launcher_.started().size(), 3U);
  ASSERT_TRUE(controller_->Cancel(kProject, "cancelled").ok());
  Settle();
  for (const FakeLauncher::Started& started : launcher_.started()) {
    EXPECT_EQ(launcher_.SignalsTo(started.pid), std::vector<int>{SIGTERM});
    executor().OnExit(started.pid, Killed(SIGTERM));
  }
  Settle();
  const model::Job job = Get("cancelled");
  EXPECT_EQ(job.state, JobState::kCancelled);
  for (const auto& trial : job.training_output->trials) {
    EXPECT_EQ(trial.state, JobState::kCancelled) << trial.trial_id;
  }
}

TEST_F(ExecutorStudyTest, MaxRunningTimeStopsTheStudyAndItsTrials) {
  model::Job study = Study("timed", {1, 2, 3}, 3, 2);
  study.training_input->scheduling =
      model::Scheduling{.max_running_time = std::chrono::seconds(10)};
  Submit(study);
  Settle();
  ASSERT_EQ(launcher_.started().size(), 2U);
  clock_.Advance(std::chrono::seconds(11));
  Settle();
  EXPECT_EQ(Get("timed").state, JobState::kCancelling);
  for (const FakeLauncher::Started& started : launcher_.started()) {
    EXPECT_EQ(launcher_.SignalsTo(started.pid), std::vector<int>{SIGTERM});
    executor().OnExit(started.pid, Killed(SIGTERM));
  }
  Settle();
  const model::Job job = Get("timed");
  EXPECT_EQ(job.state, JobState::kCancelled);
  EXPECT_EQ(job.error_message, "Job cancelled: exceeded maxRunningTime.");
  EXPECT_EQ(launcher_.started().size(), 2U) << "no trial starts once the study ends";
}

TEST_F(ExecutorStudyTest, ResumedStudyContinuesNumberingAndSkipsTriedPoints) {
  Submit(Study("first", {1, 2, 3}, 2, 1));
  Settle();
  Report("1", {{1, 1.0}});
  Exit(Trial("1").pid, Exited(0));
  Report("2", {{1, 2.0}});
  Exit(Trial("2").pid, Exited(0));
  ASSERT_EQ(Get("first").state, JobState::kSucceeded);

  model::Job resumed = Study("second", {1, 2, 3}, 1, 1);
  resumed.training_input->hyperparameters->resume_previous_job_id = "first";
  Submit(resumed);
  executor().Wake();
  Settle();
  ASSERT_EQ(launcher_.started().size(), 3U);
  const FakeLauncher::Started third = launcher_.started().back();
  EXPECT_EQ(EnvOf(third.spec, "CLOUD_ML_TRIAL_ID"), "3") << "numbering continues";
  EXPECT_TRUE(HasArg(third.spec, "--x=3")) << "the earlier trials' points are not tried again";
}

TEST_F(ExecutorStudyTest, ResumingAJobThatDoesNotExistIsRefusedAtSubmit) {
  model::Job resumed = Study("orphan", {1, 2}, 1, 1);
  resumed.training_input->hyperparameters->resume_previous_job_id = "nope";
  const Result<model::Job> submitted = controller_->Submit(kProject, resumed);
  ASSERT_EQ(submitted.status().code(), Code::kInvalidArgument);
  ASSERT_EQ(submitted.status().violations().size(), 1U);
  EXPECT_EQ(submitted.status().violations()[0].field,
            "trainingInput.hyperparameters.resumePreviousJobId");
}

TEST_F(ExecutorStudyTest, ARestartedServerTakesOverRunningTrials) {
  Submit(Study("kept", {1, 2, 3}, 3, 2));
  Settle();
  const std::vector<FakeLauncher::Started> before = launcher_.started();
  ASSERT_EQ(before.size(), 2U);
  executor().Stop(/*stop_replicas=*/false);
  executor_.reset();

  launcher_.DefaultAdoptAnswer(true);
  executor().Recover();
  Settle();
  EXPECT_EQ(launcher_.adopted().size(), 2U);
  EXPECT_EQ(launcher_.started().size(), 2U) << "nothing started again";
  Report("1", {{1, 0.1}});
  Exit(before[0].pid, Exited(0));
  ASSERT_EQ(launcher_.started().size(), 3U) << "the study goes on: trial 3";
  EXPECT_EQ(EnvOf(launcher_.started().back().spec, "CLOUD_ML_TRIAL_ID"), "3");
  EXPECT_EQ(TrialOf(Get("kept"), "1").state, JobState::kSucceeded);
}

// A trial whose replica was started but whose pid never reached its run record (the server was
// killed in between, as issue #17's kill test found for plain jobs): the next server kills it by
// its command line and fails the trial, rather than leaving it running unowned.
TEST_F(ExecutorStudyTest, ATrialStartedButNotRecordedIsKilledByTheNextServer) {
  Submit(Study("lost", {1, 2, 3}, 3, 2));
  Settle();
  const std::vector<FakeLauncher::Started> before = launcher_.started();
  ASSERT_EQ(before.size(), 2U);
  executor().Stop(/*stop_replicas=*/false);
  executor_.reset();
  const JobLayout trial2(dir_.path().string(), std::string(kProject), "lost", "2");
  std::filesystem::remove(trial2.run_record());
  launcher_.StartedElsewhere(trial2.exit_path("master-replica-0"), before[1].pid);

  launcher_.DefaultAdoptAnswer(true);
  executor().Recover();
  EXPECT_EQ(launcher_.SignalsTo(before[1].pid), std::vector<int>{SIGKILL});
  EXPECT_EQ(TrialOf(Get("lost"), "2").state, JobState::kFailed);
  EXPECT_EQ(launcher_.SignalsTo(before[0].pid), std::vector<int>{}) << "trial 1 is adopted";
}

}  // namespace
}  // namespace trainyard::control
