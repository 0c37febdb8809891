// Vertex AI hyperparameter-tuning studies run for real by the daemon: a study of two metrics
// (studySpec.metrics with two entries), its trials reporting both through trainyard's hypertune
// module, each trial's finalMeasurement listing both, and a trial that reports one metric only
// not being an observation.
#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "integration/executing_server.h"
#include "integration/live_server.h"

namespace trainyard::testing {
namespace {

using nlohmann::json;

constexpr char kStudies[] = "/v1/projects/proj/locations/us-central1/hyperparameterTuningJobs";

// A log entry's text: a replica's textPayload, or the service's jsonPayload.message.
std::string Text(const json& entry) {
  return entry.contains("jsonPayload") ? entry["jsonPayload"].value("message", "")
                                       : entry.value("textPayload", "");
}

class StudyTest : public ExecutionTest {
 protected:
  // A study of `parameters` whose trials run trainer.tune_two with `args`, reporting `acc`
  // (MAXIMIZE) and `loss` (MINIMIZE); returns the created resource's id.
  std::string CreateStudy(const json& parameters, const std::string& algorithm, int trials,
                          const std::vector<std::string>& args) {
    json study = {{"metrics",
                   {{{"metricId", "acc"}, {"goal", "MAXIMIZE"}},
                    {{"metricId", "loss"}, {"goal", "MINIMIZE"}}}},
                  {"parameters", parameters}};
    if (!algorithm.empty()) {
      study["algorithm"] = algorithm;
    }
    const json body = {
        {"displayName", "two-metrics"},
        {"maxTrialCount", trials},
        {"parallelTrialCount", 1},
        {"studySpec", study},
        {"trialJobSpec",
         {{"workerPoolSpecs",
           {{{"machineSpec", {{"machineType", "n1-standard-4"}}},
             {"replicaCount", 1},
             {"pythonPackageSpec",
              {{"executorImageUri", "us-docker.pkg.dev/vertex-ai/training/tf-cpu.2-11:latest"},
               {"packageUris", {package_uri()}},
               {"pythonModule", "trainer.tune_two"},
               {"args", args}}}}}}}}};
    const ClientResponse created = server_.client().Post(kStudies, body.dump());
    EXPECT_EQ(created.status, 200) << created.body;
    const std::string name = Body(created).value("name", "");
    return name.substr(name.rfind('/') + 1);
  }

  // The study once it has ended (a test failure when the deadline passed first).
  json WaitForEnd(const std::string& id) {
    json job;
    EXPECT_TRUE(Eventually([&] {
      job = Body(server_.client().Get(std::string(kStudies) + "/" + id));
      const std::string state = job.value("state", "");
      return state == "JOB_STATE_SUCCEEDED" || state == "JOB_STATE_FAILED" ||
             state == "JOB_STATE_CANCELLED";
    })) << job.dump();
    return job;
  }
};

// The Gaussian-process search scalarises the two metrics (tuning/multi_objective.h): after its
// initial design, suggestions come from scalarised histories, and every trial's measurement
// carries both metrics in the study's order, each its last reported value.
TEST_F(StudyTest, EveryTrialIsMeasuredOnBothMetrics) {
  const std::string id = CreateStudy(
      {{{"parameterId", "x"}, {"doubleValueSpec", {{"minValue", 0}, {"maxValue", 4}}}}}, "", 4, {});
  const json job = WaitForEnd(id);
  ASSERT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  ASSERT_EQ(job["studySpec"]["metrics"].size(), 2U) << job.dump();
  EXPECT_EQ(job["studySpec"]["metrics"][1]["metricId"], "loss");
  ASSERT_EQ(job["trials"].size(), 4U) << job.dump();
  std::set<double> xs;
  for (const json& trial : job["trials"]) {
    EXPECT_EQ(trial.value("state", ""), "SUCCEEDED") << trial.dump();
    const double x = trial["parameters"][0]["value"].get<double>();
    xs.insert(x);
    const json& measured = trial["finalMeasurement"];
    EXPECT_EQ(measured.value("stepCount", ""), "2") << trial.dump();
    ASSERT_EQ(measured["metrics"].size(), 2U) << trial.dump();
    EXPECT_EQ(measured["metrics"][0]["metricId"], "acc");
    EXPECT_DOUBLE_EQ(measured["metrics"][0]["value"].get<double>(), x);
    EXPECT_EQ(measured["metrics"][1]["metricId"], "loss");
    EXPECT_NEAR(measured["metrics"][1]["value"].get<double>(), std::pow(x - 2, 2), 1e-9);
  }
  EXPECT_EQ(xs.size(), 4U) << "four distinct suggestions: " << job.dump();
  std::string closing;
  for (const json& entry : ListLogEntries(server_.client(), id)) {
    const std::string text = Text(entry);
    if (text.find("The Pareto front") != std::string::npos) {
      closing = text;
    }
  }
  EXPECT_NE(closing.find("The Pareto front of acc, loss: trial"), std::string::npos) << closing;
}

// A trial that reports `acc` but not `loss` completes without a measurement, as a trial that
// does not report a study's one metric does; the study still succeeds on the other trial.
TEST_F(StudyTest, ATrialWithoutEveryMetricIsNoObservation) {
  const std::string id =
      CreateStudy({{{"parameterId", "x"}, {"discreteValueSpec", {{"values", {1, 3}}}}}},
                  "GRID_SEARCH", 2, {"--no-loss-at=3"});
  const json job = WaitForEnd(id);
  ASSERT_EQ(job.value("state", ""), "JOB_STATE_SUCCEEDED") << job.dump();
  ASSERT_EQ(job["trials"].size(), 2U) << job.dump();
  for (const json& trial : job["trials"]) {
    EXPECT_EQ(trial.value("state", ""), "SUCCEEDED") << trial.dump();
    const double x = trial["parameters"][0]["value"].get<double>();
    EXPECT_EQ(trial.contains("finalMeasurement"), x == 1) << trial.dump();
  }
  std::vector<std::string> said;
  for (const json& entry : ListLogEntries(server_.client(), id)) {
    said.push_back(Text(entry));
  }
  EXPECT_NE(
      std::find(said.begin(), said.end(), "Trial 2 completed without reporting the metric loss."),
      said.end())
      << ::testing::PrintToString(said);
}

}  // namespace
}  // namespace trainyard::testing
