#!/usr/bin/python3
"""Tuning studies over built-in algorithms, through the real gcloud and a real `trainyard serve`.

As a user tunes a built-in algorithm (docs/reference/ai-platform-training.md §9 and §12):
scikit-learn's breast-cancer rows, headerless and target first, in a bucket; `gcloud ai-platform
jobs submit training T --master-image-uri IMAGE --config hptuning.yaml -- --preprocess
--training_data_path=…`, the config maximising `auc` over 4 trials, 2 at a time. First the XGBoost
algorithm (gcr.io/cloud-ml-algos/boosted_trees, max_depth and eta, --eval_metric=auc), then the
linear learner (linear_learner_cpu, learning_rate and batch_size, classification). Each study must
reach SUCCEEDED with every trial SUCCEEDED; each trial's finalMetric is the validation AUC its own
artifacts/metrics.json reports under <job dir>/<trial>/, and its builtInAlgorithmOutput names its
model; the best trial's model, loaded in its framework (xgboost, torch.jit), scores that same AUC
on the held-out rows its metadata names.

Needs Debian's python3-xgboost and python3-sklearn. Usage: gcloud_algorithms_tuning_test.py
--trainyard PATH [unittest args]. Ends with "N passed, M failed".
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_algorithms_test as algorithms  # noqa: E402  (needs the path above)
import gcloud_env  # noqa: E402

BUCKET = "algo-e2e-tuning"
CONFIG = """trainingInput:
  scaleTier: BASIC
  hyperparameters:
    goal: MAXIMIZE
    hyperparameterMetricTag: auc
    maxTrials: 4
    maxParallelTrials: 2
    params:
%s"""
XGBOOST_PARAMS = """    - parameterName: max_depth
      type: INTEGER
      minValue: 2
      maxValue: 6
    - parameterName: eta
      type: DOUBLE
      minValue: 0.05
      maxValue: 0.5
      scaleType: UNIT_LOG_SCALE
"""
LINEAR_PARAMS = """    - parameterName: learning_rate
      type: DOUBLE
      minValue: 0.001
      maxValue: 0.1
      scaleType: UNIT_LOG_SCALE
    - parameterName: batch_size
      type: DISCRETE
      discreteValues: [16, 64]
"""
# Loads the linear learner's TorchScript model (argv[1]) and prints its AUC on the CSV's lines
# listed in argv[3] (JSON): the model takes the raw numeric columns and standardises them itself.
SCORE_LINEAR = """import json, sys
import numpy as np
import torch
from sklearn.metrics import roc_auc_score
lines = set(json.loads(sys.argv[3]))
rows = [l.split(",") for n, l in enumerate(open(sys.argv[2]).read().splitlines(), 1) if n in lines]
data = np.array(rows, dtype=np.float32)
model = torch.jit.load(sys.argv[1])
with torch.no_grad():
    print(roc_auc_score(data[:, 0], model(torch.from_numpy(data[:, 1:])).numpy()))
"""


class AlgorithmTuningTest(algorithms.AlgorithmsCase):

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.csv = os.path.join(cls.tmp, "data.csv")

    def study(self, job_id, image, params, args, trial_params):
        """Submits a study of `image` tuning `params` (CONFIG's) through gcloud; checks it
        SUCCEEDED with 4 SUCCEEDED trials, each reporting its own validation AUC; returns the
        best trial's directory under the bucket."""
        if not os.path.exists(self.csv):
            self.write_data(self.csv)
            self.gcloud("storage", "buckets", "create", "gs://" + BUCKET)
            self.gcloud("storage", "cp", self.csv, "gs://%s/data.csv" % BUCKET)
        config = os.path.join(self.tmp, job_id + ".yaml")
        with open(config, "w", encoding="utf-8") as f:
            f.write(CONFIG % params)
        self.gcloud("ai-platform", "jobs", "submit", "training", job_id,
                    "--master-image-uri", image, "--config", config,
                    "--region", "us-central1", "--job-dir", "gs://%s/%s" % (BUCKET, job_id),
                    "--", "--preprocess", "--training_data_path=gs://%s/data.csv" % BUCKET, *args)
        job = self.wait(job_id)
        if job["state"] != "SUCCEEDED":
            self.fail("%s\n%s" % (json.dumps(job, indent=2), self.job_log(job_id)))
        output = job["trainingOutput"]
        self.assertEqual(output.get("hyperparameterMetricTag"), "auc", output)
        trials = output.get("trials", [])
        self.assertEqual(len(trials), 4, output)
        job_dir = os.path.join(self.data, "buckets", BUCKET, job_id)
        for trial in trials:
            self.assertEqual(trial.get("state"), "SUCCEEDED", trial)
            self.assertEqual(set(trial["hyperparameters"]), trial_params, trial)
            with open(os.path.join(job_dir, trial["trialId"], "artifacts", "metrics.json"),
                      encoding="utf-8") as f:
                reported = json.load(f)["validation"]["auc"]
            self.assertAlmostEqual(trial["finalMetric"]["objectiveValue"], reported, places=9,
                                   msg=trial)
            self.assertEqual(trial["builtInAlgorithmOutput"]["modelPath"],
                             "gs://%s/%s/%s/model" % (BUCKET, job_id, trial["trialId"]))
        best = max(trials, key=lambda t: t["finalMetric"]["objectiveValue"])
        return best, os.path.join(job_dir, best["trialId"])

    def check_best_model(self, best, trial_dir, score, model):
        """The best trial's model, loaded in its framework by `score`, scores its reported AUC
        on the held-out rows its metadata names."""
        with open(os.path.join(trial_dir, "artifacts", "metadata.json"), encoding="utf-8") as f:
            held_out = json.load(f)["rows"]["validation"]
        self.assertEqual(len(held_out), 114)  # 20 % of 569, the documented default split
        run = self.run_command([algorithms.PYTHON, "-c", score,
                                os.path.join(trial_dir, "model", model), self.csv,
                                json.dumps(held_out)])
        self.assertEqual(run.rc, 0, run)
        auc = float(run.out.strip().splitlines()[0])
        self.assertAlmostEqual(auc, best["finalMetric"]["objectiveValue"], places=6)
        self.assertGreater(auc, 0.95)

    def test_a_study_of_xgboost_succeeds_and_its_best_model_scores_its_metric(self):
        best, trial_dir = self.study("xgb_study", algorithms.IMAGE, XGBOOST_PARAMS,
                                     ["--objective=binary:logistic", "--eval_metric=auc"],
                                     {"max_depth", "eta"})
        self.check_best_model(best, trial_dir, algorithms.SCORE, "model.bst")

    def test_a_study_of_the_linear_learner_succeeds_and_its_best_model_scores_its_metric(self):
        best, trial_dir = self.study("linear_study",
                                     "gcr.io/cloud-ml-algos/linear_learner_cpu:latest",
                                     LINEAR_PARAMS,
                                     ["--model_type=classification", "--max_steps=200",
                                      "--optimizer_type=adam"],
                                     {"learning_rate", "batch_size"})
        self.check_best_model(best, trial_dir, SCORE_LINEAR, "model.pt")


if __name__ == "__main__":
    gcloud_env.main(__doc__, algorithms._set_trainyard)  # pylint: disable=protected-access
