#!/usr/bin/python3
"""A tuning study over the built-in XGBoost algorithm, through the real gcloud and a real
`trainyard serve`.

As a user tunes a built-in algorithm (docs/reference/ai-platform-training.md §9 and §12):
scikit-learn's breast-cancer rows, headerless and target first, in a bucket; `gcloud ai-platform
jobs submit training T --master-image-uri gcr.io/cloud-ml-algos/boosted_trees:latest --config
hptuning.yaml -- --preprocess --training_data_path=… --objective=binary:logistic
--eval_metric=auc`, the config tuning max_depth and eta over 4 trials, 2 at a time, maximising
`auc`. The study must reach SUCCEEDED with every trial SUCCEEDED; each trial's finalMetric is
the validation AUC its own artifacts/metrics.json reports under <job dir>/<trial>/; and the best
trial's model, loaded in xgboost, scores that same AUC on the held-out rows its metadata names.

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
JOB = "xgb_study"
CONFIG = """trainingInput:
  scaleTier: BASIC
  hyperparameters:
    goal: MAXIMIZE
    hyperparameterMetricTag: auc
    maxTrials: 4
    maxParallelTrials: 2
    params:
    - parameterName: max_depth
      type: INTEGER
      minValue: 2
      maxValue: 6
    - parameterName: eta
      type: DOUBLE
      minValue: 0.05
      maxValue: 0.5
      scaleType: UNIT_LOG_SCALE
"""


class AlgorithmTuningTest(algorithms.AlgorithmsCase):

    def test_a_study_of_xgboost_succeeds_and_its_best_model_scores_its_metric(self):
        csv = os.path.join(self.tmp, "data.csv")
        self.write_data(csv)
        self.gcloud("storage", "buckets", "create", "gs://" + BUCKET)
        self.gcloud("storage", "cp", csv, "gs://%s/data.csv" % BUCKET)
        config = os.path.join(self.tmp, "hptuning.yaml")
        with open(config, "w", encoding="utf-8") as f:
            f.write(CONFIG)

        self.gcloud("ai-platform", "jobs", "submit", "training", JOB,
                    "--master-image-uri", algorithms.IMAGE, "--config", config,
                    "--region", "us-central1", "--job-dir", "gs://%s/out" % BUCKET, "--",
                    "--preprocess", "--training_data_path=gs://%s/data.csv" % BUCKET,
                    "--objective=binary:logistic", "--eval_metric=auc")
        job = self.wait(JOB)
        self.assertEqual(job["state"], "SUCCEEDED", "%s\n%s" % (json.dumps(job, indent=2),
                                                               self.job_log(JOB)))
        output = job["trainingOutput"]
        self.assertEqual(output.get("hyperparameterMetricTag"), "auc", output)
        trials = output.get("trials", [])
        self.assertEqual(len(trials), 4, output)
        job_dir = os.path.join(self.data, "buckets", BUCKET, "out")
        for trial in trials:
            self.assertEqual(trial.get("state"), "SUCCEEDED", trial)
            self.assertEqual(set(trial["hyperparameters"]), {"max_depth", "eta"}, trial)
            with open(os.path.join(job_dir, trial["trialId"], "artifacts", "metrics.json"),
                      encoding="utf-8") as f:
                reported = json.load(f)["validation"]["auc"]
            self.assertAlmostEqual(trial["finalMetric"]["objectiveValue"], reported, places=9,
                                   msg=trial)
            self.assertEqual(trial["builtInAlgorithmOutput"]["modelPath"],
                             "gs://%s/out/%s/model" % (BUCKET, trial["trialId"]))

        best = max(trials, key=lambda t: t["finalMetric"]["objectiveValue"])
        trial_dir = os.path.join(job_dir, best["trialId"])
        with open(os.path.join(trial_dir, "artifacts", "metadata.json"), encoding="utf-8") as f:
            held_out = json.load(f)["rows"]["validation"]
        self.assertEqual(len(held_out), 114)  # 20 % of 569, the documented default split
        run = self.run_command([algorithms.PYTHON, "-c", algorithms.SCORE,
                                os.path.join(trial_dir, "model", "model.bst"), csv,
                                json.dumps(held_out)])
        self.assertEqual(run.rc, 0, run)
        auc = float(run.out.strip().splitlines()[0])
        self.assertAlmostEqual(auc, best["finalMetric"]["objectiveValue"], places=6)
        self.assertGreater(auc, 0.95)


if __name__ == "__main__":
    gcloud_env.main(__doc__, algorithms._set_trainyard)  # pylint: disable=protected-access
