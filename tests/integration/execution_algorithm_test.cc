// The built-in XGBoost algorithm (docs/reference/ai-platform-training.md §12) run for real by the
// daemon over HTTP: a job whose master image is gcr.io/cloud-ml-algos/boosted_trees trains on a
// headerless CSV in a bucket (scikit-learn's bundled breast-cancer data, target first) with
// Debian's python3-xgboost and writes model/ and artifacts/ under its job dir; a malformed CSV
// FAILS the job naming the file and line and leaves no model/; arguments and unavailable
// algorithms are refused at submit in the API's shape.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "integration/executing_server.h"
#include "integration/live_server.h"

namespace trainyard::testing {
namespace {

using ::testing::HasSubstr;

constexpr char kImage[] = "gcr.io/cloud-ml-algos/boosted_trees:latest";
// scikit-learn's copy: a count line, then 30 features and the target last.
constexpr char kBreastCancer[] =
    "/usr/lib/python3/dist-packages/sklearn/datasets/data/breast_cancer.csv";

// The breast-cancer rows as the algorithm wants them: no header, the target first.
std::string BreastCancerCsv() {
  std::ifstream in(kBreastCancer);
  EXPECT_TRUE(in.good()) << kBreastCancer
                         << " is missing: scripts/setup.sh installs python3-sklearn";
  std::string line;
  std::getline(in, line);  // "569,30,malignant,benign"
  std::ostringstream out;
  while (std::getline(in, line)) {
    const std::size_t last = line.rfind(',');
    out << line.substr(last + 1) << ',' << line.substr(0, last) << '\n';
  }
  return out.str();
}

nlohmann::json AlgorithmJob(std::string_view job_id, std::string_view image,
                            std::vector<std::string> args) {
  return {{"jobId", job_id},
          {"trainingInput",
           {{"scaleTier", "BASIC"},
            {"region", "us-central1"},
            {"masterConfig", {{"imageUri", image}}},
            {"args", args},
            {"jobDir", "gs://bkt/" + std::string(job_id)}}}};
}

class AlgorithmTest : public ExecutionTest {};

TEST_F(AlgorithmTest, XgboostTrainsOnACsvInABucketAndWritesItsModel) {
  server_.Upload("bkt", "data/cancer.csv", BreastCancerCsv());
  server_.Submit(AlgorithmJob("xgb_1", kImage,
                              {"--preprocess", "--training_data_path=gs://bkt/data/cancer.csv",
                               "--objective=binary:logistic", "--max_depth=3"}));
  const nlohmann::json job = server_.WaitForState("xgb_1");
  ASSERT_EQ(job["state"], "SUCCEEDED") << job.dump() << server_.Output("xgb_1", "master-replica-0");
  const nlohmann::json& output = job["trainingOutput"];
  EXPECT_EQ(output.value("isBuiltInAlgorithmJob", false), true) << output.dump();
  EXPECT_EQ(output["builtInAlgorithmOutput"]["framework"], "XGBOOST");
  EXPECT_EQ(output["builtInAlgorithmOutput"]["modelPath"], "gs://bkt/xgb_1/model");

  EXPECT_TRUE(std::filesystem::is_regular_file(JobDir("xgb_1") / "model" / "model.bst"));
  const nlohmann::json metadata = ReadJson(JobDir("xgb_1") / "artifacts" / "metadata.json");
  // --preprocess's default split: 20 % of the 569 rows for validation, none for testing.
  EXPECT_EQ(metadata["rows"]["validation"].size(), 114u) << metadata.dump();
  EXPECT_EQ(metadata["rows"]["test"].size(), 0u);
  EXPECT_EQ(metadata["columns"].size(), 30u);
  const nlohmann::json metrics = ReadJson(JobDir("xgb_1") / "artifacts" / "metrics.json");
  EXPECT_GT(metrics["validation"].value("auc", 0.0), 0.9) << metrics.dump();
  EXPECT_THAT(server_.Output("xgb_1", "master-replica-0"), HasSubstr("validation-logloss"));
  // The model object is listed by the storage API.
  EXPECT_EQ(server_.GetObject("bkt", "xgb_1/model/model.bst").status, 200);
}

// A tuning study of the algorithm (docs/reference/ai-platform-training.md §9, §12): each trial gets
// its max_depth and eta on the command line, writes under <job-dir>/<trial>/ and reports the
// documented metric (auc); the trials carry their own builtInAlgorithmOutput with their model, the
// study none (Google sets modelPath only for jobs that are not tuning jobs).
TEST_F(AlgorithmTest, XgboostTuningStudyReportsAucFromEachTrial) {
  server_.Upload("bkt", "data/cancer.csv", BreastCancerCsv());
  nlohmann::json body =
      AlgorithmJob("xgb_hp", kImage,
                   {"--preprocess", "--training_data_path=gs://bkt/data/cancer.csv",
                    "--objective=binary:logistic", "--num_round=5"});
  body["trainingInput"]["hyperparameters"] = {
      {"goal", "MAXIMIZE"},
      {"hyperparameterMetricTag", "auc"},
      {"maxTrials", 2},
      {"maxParallelTrials", 2},
      {"params",
       {{{"parameterName", "max_depth"}, {"type", "INTEGER"}, {"minValue", 2}, {"maxValue", 4}},
        {{"parameterName", "eta"}, {"type", "DOUBLE"}, {"minValue", 0.1}, {"maxValue", 0.5}}}}};
  server_.Submit(body);
  const nlohmann::json job = server_.WaitForState("xgb_hp");
  ASSERT_EQ(job["state"], "SUCCEEDED") << job.dump();
  const nlohmann::json& output = job["trainingOutput"];
  EXPECT_EQ(output.value("isBuiltInAlgorithmJob", false), true) << output.dump();
  EXPECT_EQ(output.value("hyperparameterMetricTag", ""), "auc");
  EXPECT_FALSE(output["builtInAlgorithmOutput"].contains("modelPath")) << output.dump();
  ASSERT_EQ(output["trials"].size(), 2U) << output.dump();
  for (const nlohmann::json& trial : output["trials"]) {
    const std::string id = trial.value("trialId", "");
    ASSERT_EQ(trial.value("state", ""), "SUCCEEDED") << trial.dump();
    EXPECT_EQ(trial["builtInAlgorithmOutput"]["framework"], "XGBOOST") << trial.dump();
    EXPECT_EQ(trial["builtInAlgorithmOutput"]["modelPath"], "gs://bkt/xgb_hp/" + id + "/model");
    EXPECT_TRUE(std::filesystem::is_regular_file(JobDir("xgb_hp") / id / "model" / "model.bst"));
    const nlohmann::json metrics = ReadJson(JobDir("xgb_hp") / id / "artifacts" / "metrics.json");
    // The objective value is the trial's validation AUC, as its metrics file records it.
    EXPECT_DOUBLE_EQ(trial["finalMetric"]["objectiveValue"].get<double>(),
                     metrics["validation"].value("auc", -1.0))
        << trial.dump() << metrics.dump();
    EXPECT_EQ(trial["finalMetric"].value("trainingStep", ""), "5") << trial.dump();
  }
  EXPECT_FALSE(std::filesystem::exists(JobDir("xgb_hp") / "model"));
}

// The linear learner (docs/reference/ai-platform-training.md §12, TensorFlow at Google, PyTorch
// here): the same CSV trains a classifier whose TorchScript model lands in model/, with the
// algorithm's output (PYTORCH).
TEST_F(AlgorithmTest, LinearLearnerTrainsOnTheSameCsvAndWritesATorchModel) {
  server_.Upload("bkt", "data/cancer.csv", BreastCancerCsv());
  server_.Submit(AlgorithmJob("linear_1", "gcr.io/cloud-ml-algos/linear_learner_cpu:latest",
                              {"--preprocess", "--training_data_path=gs://bkt/data/cancer.csv",
                               "--model_type=classification", "--optimizer_type=adam",
                               "--learning_rate=0.01", "--max_steps=200"}));
  const nlohmann::json job = server_.WaitForState("linear_1");
  ASSERT_EQ(job["state"], "SUCCEEDED")
      << job.dump() << server_.Output("linear_1", "master-replica-0");
  const nlohmann::json& output = job["trainingOutput"];
  EXPECT_EQ(output.value("isBuiltInAlgorithmJob", false), true) << output.dump();
  EXPECT_EQ(output["builtInAlgorithmOutput"]["framework"], "PYTORCH");
  EXPECT_EQ(output["builtInAlgorithmOutput"]["modelPath"], "gs://bkt/linear_1/model");
  EXPECT_TRUE(std::filesystem::is_regular_file(JobDir("linear_1") / "model" / "model.pt"));
  const nlohmann::json metrics = ReadJson(JobDir("linear_1") / "artifacts" / "metrics.json");
  EXPECT_GT(metrics["validation"].value("auc", 0.0), 0.9) << metrics.dump();
  EXPECT_EQ(ReadJson(JobDir("linear_1") / "artifacts" / "metadata.json")["classes"], 2);
}

// Wide and deep (TensorFlow's DNNLinearCombined at Google, PyTorch here), on the same CSV.
TEST_F(AlgorithmTest, WideAndDeepTrainsOnTheSameCsvAndWritesATorchModel) {
  server_.Upload("bkt", "data/cancer.csv", BreastCancerCsv());
  server_.Submit(
      AlgorithmJob("wide_1", "gcr.io/cloud-ml-algos/wide_deep_learner_cpu:latest",
                   {"--preprocess", "--training_data_path=gs://bkt/data/cancer.csv",
                    "--model_type=classification", "--hidden_units=16,8",
                    "--dnn_optimizer_type=adam", "--dnn_learning_rate=0.01", "--max_steps=100"}));
  const nlohmann::json job = server_.WaitForState("wide_1");
  ASSERT_EQ(job["state"], "SUCCEEDED")
      << job.dump() << server_.Output("wide_1", "master-replica-0");
  EXPECT_EQ(job["trainingOutput"]["builtInAlgorithmOutput"]["framework"], "PYTORCH");
  EXPECT_EQ(job["trainingOutput"]["builtInAlgorithmOutput"]["modelPath"], "gs://bkt/wide_1/model");
  EXPECT_TRUE(std::filesystem::is_regular_file(JobDir("wide_1") / "model" / "model.pt"));
  const nlohmann::json metrics = ReadJson(JobDir("wide_1") / "artifacts" / "metrics.json");
  EXPECT_GT(metrics["validation"].value("auc", 0.0), 0.9) << metrics.dump();
  EXPECT_EQ(metrics.value("algorithm", ""), "wide_deep");
}

TEST_F(AlgorithmTest, AMalformedCsvFailsTheJobNamingFileAndLine) {
  server_.Upload("bkt", "bad.csv", "target,a,b\n1,2,3\n0,4,5\n");
  server_.Submit(
      AlgorithmJob("xgb_bad", kImage, {"--preprocess", "--training_data_path=gs://bkt/bad.csv"}));
  const nlohmann::json job = server_.WaitForState("xgb_bad");
  ASSERT_EQ(job["state"], "FAILED") << job.dump();
  EXPECT_THAT(job.value("errorMessage", ""),
              HasSubstr("gs://bkt/bad.csv line 1: looks like a header row"));
  EXPECT_FALSE(std::filesystem::exists(JobDir("xgb_bad") / "model"));
  EXPECT_FALSE(job["trainingOutput"]["builtInAlgorithmOutput"].contains("modelPath")) << job.dump();
}

TEST_F(AlgorithmTest, ArgumentsAndUnavailableAlgorithmsAreRefusedAtSubmit) {
  const ClientResponse bad =
      server_.client().Post(JobsPath(), AlgorithmJob("xgb_args", kImage,
                                                     {"--training_data_path=gs://bkt/d.csv",
                                                      "--validation_split=0.3", "--test_split=0.2"})
                                            .dump());
  ASSERT_EQ(bad.status, 400) << bad.body;
  const nlohmann::json error = Body(bad)["error"];
  EXPECT_EQ(error["status"], "INVALID_ARGUMENT");
  EXPECT_THAT(error.dump(), HasSubstr("trainingInput.args[2]"));
  EXPECT_THAT(error.dump(), HasSubstr("validation_split + test_split must be at most 0.40"));

  const ClientResponse unavailable = server_.client().Post(
      JobsPath(), AlgorithmJob("image_1", "gcr.io/cloud-ml-algos/image_classification:latest",
                               {"--training_data_path=gs://bkt/d.csv"})
                      .dump());
  ASSERT_EQ(unavailable.status, 400) << unavailable.body;
  EXPECT_EQ(Body(unavailable)["error"]["status"], "FAILED_PRECONDITION");
  EXPECT_THAT(Body(unavailable)["error"]["message"].get<std::string>(),
              HasSubstr("built-in algorithm gcr.io/cloud-ml-algos/image_classification:latest"));
  EXPECT_EQ(server_.client().Get(JobPath("image_1")).status, 404);  // nothing was stored
}

}  // namespace
}  // namespace trainyard::testing
