#!/usr/bin/python3
"""The built-in XGBoost algorithm through the real gcloud and a real `trainyard serve`.

As a user follows Google's guide (docs/reference/ai-platform-training.md §12): scikit-learn's
bundled breast-cancer data is written headerless, target first, into a bucket with `gcloud storage
cp`; `gcloud ai-platform jobs submit training J --master-image-uri
gcr.io/cloud-ml-algos/boosted_trees:latest --scale-tier BASIC --job-dir gs://b/out -- --preprocess
--training_data_path=gs://b/data.csv --objective=binary:logistic` must reach SUCCEEDED; `gcloud
ai-platform jobs describe` shows isBuiltInAlgorithmJob and builtInAlgorithmOutput (framework
XGBOOST, Debian's XGBoost and Python versions, modelPath); the model under the job dir loads in
xgboost and its AUC on the held-out rows (artifacts/metadata.json names their lines) is the one
reported in artifacts/metrics.json. gcloud also shows the refusals: an argument out of range
(INVALID_ARGUMENT naming trainingInput.args[i]) and an algorithm this server does not run
(FAILED_PRECONDITION), which start no job. Then the distributed XGBoost algorithm
(gcr.io/cloud-ml-algos/xgboost_dist) on a master and two workers (CUSTOM tier): its replicas meet
over XGBoost's collective, the master writes the model, whose AUC on the validation file is the
reported one. Two jobs run: the suite is kept short for CI.

Needs Debian's python3-xgboost and python3-sklearn. Usage: gcloud_algorithms_test.py --trainyard
PATH [unittest args]. Ends with "N passed, M failed".
"""

import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gcloud_env  # noqa: E402  (needs the path above)

PYTHON = "/usr/bin/python3"
GCLOUD = gcloud_env.GCLOUD
TRAINYARD = None  # set by main()
PROJECT = "p"
BUCKET = "algo-e2e"
IMAGE = "gcr.io/cloud-ml-algos/boosted_trees:latest"
TERMINAL = ("SUCCEEDED", "FAILED", "CANCELLED")
JOB_DEADLINE_S = 300
COMMAND_TIMEOUT_S = 180
# Writes the breast-cancer data as the algorithm wants it (argv[1]): no header, target first.
WRITE_DATA = """import sys
from sklearn.datasets import load_breast_cancer
x, y = load_breast_cancer(return_X_y=True)
with open(sys.argv[1], "w") as f:
    for features, target in zip(x, y):
        f.write(",".join([str(int(target))] + [repr(float(v)) for v in features]) + "\\n")
"""
# Loads the model (argv[1]) and prints its AUC on the CSV's lines listed in argv[3] (JSON).
SCORE = """import json, sys
import numpy as np
import xgboost as xgb
from sklearn.metrics import roc_auc_score
lines = set(json.loads(sys.argv[3]))
rows = [l.split(",") for n, l in enumerate(open(sys.argv[2]).read().splitlines(), 1) if n in lines]
data = np.array(rows, dtype=float)
booster = xgb.Booster(model_file=sys.argv[1])
print(roc_auc_score(data[:, 0], booster.predict(xgb.DMatrix(data[:, 1:]))))
print(xgb.__version__, sys.version_info[0], sys.version_info[1])
"""


class AlgorithmsCase(gcloud_env.ServerTestCase):
    """A server, gcloud and the job helpers every built-in algorithm suite uses; no tests."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="trainyard-e2e-algorithms-")
        cls.data = os.path.join(cls.tmp, "data")
        cls.server = gcloud_env.start_server(TRAINYARD, cls.tmp, cls.data)

    def run_command(self, argv, env=None):
        proc = subprocess.run(argv, env=env, cwd=self.tmp, capture_output=True, text=True,
                              timeout=COMMAND_TIMEOUT_S, check=False)
        return gcloud_env.Run(proc)

    def gcloud(self, *args, ok=True):
        env = gcloud_env.gcloud_environment(os.path.join(self.tmp, "gcloud"), PROJECT,
                                            self.server.url)
        run = self.run_command([GCLOUD, *args], env=env)
        if ok:
            self.assertEqual(run.rc, 0, run)
        return run

    def describe(self, job_id):
        return json.loads(self.gcloud("ai-platform", "jobs", "describe", job_id,
                                      "--format", "json").out)

    def wait(self, job_id):
        deadline = time.monotonic() + JOB_DEADLINE_S
        while True:
            job = self.describe(job_id)
            if job["state"] in TERMINAL or time.monotonic() > deadline:
                return job
            time.sleep(0.5)

    def job_log(self, job_id):
        """The tail of each replica's log of the job, its trials' included."""
        path = os.path.join(self.data, "jobs", PROJECT, job_id, "logs")
        out = []
        for directory, _, names in sorted(os.walk(path)):
            for name in sorted(names):
                with open(os.path.join(directory, name), encoding="utf-8",
                          errors="replace") as f:
                    out.append(f.read()[-3000:])
        return "\n".join(out)

    def write_data(self, path):
        """scikit-learn's breast-cancer rows at `path`: no header, target first."""
        run = self.run_command([PYTHON, "-c", WRITE_DATA, path])
        self.assertEqual(run.rc, 0, run)


class AlgorithmsTest(AlgorithmsCase):

    def test_xgboost_trains_and_its_model_predicts_the_held_out_rows(self):
        csv = os.path.join(self.tmp, "data.csv")
        self.write_data(csv)
        self.gcloud("storage", "buckets", "create", "gs://" + BUCKET)
        self.gcloud("storage", "cp", csv, "gs://%s/data.csv" % BUCKET)

        run = self.gcloud("ai-platform", "jobs", "submit", "training", "xgb_e2e",
                          "--master-image-uri", IMAGE, "--scale-tier", "BASIC",
                          "--region", "us-central1", "--job-dir", "gs://%s/out" % BUCKET, "--",
                          "--preprocess", "--training_data_path=gs://%s/data.csv" % BUCKET,
                          "--objective=binary:logistic")
        self.assertIn("Job [xgb_e2e] submitted successfully.", run.out + run.err)
        job = self.wait("xgb_e2e")
        self.assertEqual(job["state"], "SUCCEEDED",
                         "%s\n%s" % (json.dumps(job, indent=2), self.job_log("xgb_e2e")))
        output = job["trainingOutput"]
        self.assertTrue(output.get("isBuiltInAlgorithmJob"), output)
        algorithm = output["builtInAlgorithmOutput"]
        self.assertEqual(algorithm["framework"], "XGBOOST")
        self.assertEqual(algorithm["modelPath"], "gs://%s/out/model" % BUCKET)

        job_dir = os.path.join(self.data, "buckets", BUCKET, "out")
        with open(os.path.join(job_dir, "artifacts", "metadata.json"), encoding="utf-8") as f:
            held_out = json.load(f)["rows"]["validation"]
        with open(os.path.join(job_dir, "artifacts", "metrics.json"), encoding="utf-8") as f:
            reported = json.load(f)["validation"]["auc"]
        self.assertEqual(len(held_out), 114)  # 20 % of 569, the documented default split
        model = os.path.join(job_dir, "model", "model.bst")
        run = self.run_command([PYTHON, "-c", SCORE, model, csv, json.dumps(held_out)])
        self.assertEqual(run.rc, 0, run)
        auc, versions = run.out.strip().splitlines()
        self.assertAlmostEqual(float(auc), reported, places=6)
        self.assertGreater(float(auc), 0.95)
        xgboost_version, major, minor = versions.split()
        self.assertTrue(xgboost_version.startswith(algorithm["runtimeVersion"] + "."), versions)
        self.assertEqual(algorithm["pythonVersion"], "%s.%s" % (major, minor))
        self.assertIn("validation-logloss", self.job_log("xgb_e2e"))

    def test_distributed_xgboost_on_a_master_and_two_workers(self):
        # The same data, as the distributed algorithm wants it (no --preprocess): two training
        # files matched by a pattern, the last 169 rows held out in a validation file.
        csv = os.path.join(self.tmp, "dist-data.csv")
        self.write_data(csv)
        with open(csv, encoding="utf-8") as f:
            lines = f.read().splitlines(keepends=True)
        parts = {"train-1.csv": lines[:200], "train-2.csv": lines[200:400],
                 "valid.csv": lines[400:]}
        self.gcloud("storage", "buckets", "create", "gs://%s-dist" % BUCKET)
        for name, part in parts.items():
            with open(os.path.join(self.tmp, name), "w", encoding="utf-8") as f:
                f.writelines(part)
            self.gcloud("storage", "cp", os.path.join(self.tmp, name),
                        "gs://%s-dist/%s" % (BUCKET, name))

        run = self.gcloud("ai-platform", "jobs", "submit", "training", "xgb_dist_e2e",
                          "--master-image-uri", "gcr.io/cloud-ml-algos/xgboost_dist:latest",
                          "--scale-tier", "CUSTOM", "--master-machine-type", "n1-standard-4",
                          "--worker-machine-type", "n1-standard-4", "--worker-count", "2",
                          "--region", "us-central1", "--job-dir", "gs://%s-dist/out" % BUCKET,
                          "--", "--training_data_path=gs://%s-dist/train-*.csv" % BUCKET,
                          "--validation_data_path=gs://%s-dist/valid.csv" % BUCKET,
                          "--objective=binary:logistic", "--eval_metric=auc",
                          "--eval_log_period=1")
        self.assertIn("Job [xgb_dist_e2e] submitted successfully.", run.out + run.err)
        job = self.wait("xgb_dist_e2e")
        self.assertEqual(job["state"], "SUCCEEDED",
                         "%s\n%s" % (json.dumps(job, indent=2), self.job_log("xgb_dist_e2e")))
        output = job["trainingOutput"]
        self.assertTrue(output.get("isBuiltInAlgorithmJob"), output)
        self.assertEqual(output["builtInAlgorithmOutput"]["modelPath"],
                         "gs://%s-dist/out/model" % BUCKET)

        job_dir = os.path.join(self.data, "buckets", BUCKET + "-dist", "out")
        with open(os.path.join(job_dir, "artifacts", "metrics.json"), encoding="utf-8") as f:
            reported = json.load(f)["validation"]["auc"]
        with open(os.path.join(job_dir, "artifacts", "metadata.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f)["replicas"], 3)
        model = os.path.join(job_dir, "model", "model.bst")
        every_line = json.dumps(list(range(1, len(parts["valid.csv"]) + 1)))
        run = self.run_command([PYTHON, "-c", SCORE, model, os.path.join(self.tmp, "valid.csv"),
                                every_line])
        self.assertEqual(run.rc, 0, run)
        auc = float(run.out.strip().splitlines()[0])
        self.assertAlmostEqual(auc, reported, places=6)
        self.assertGreater(auc, 0.95)
        log = self.job_log("xgb_dist_e2e")
        for rank in range(3):
            self.assertIn("as replica %d of 3" % rank, log)
        self.assertIn("validation-auc", log)

    def test_refusals_start_no_job(self):
        run = self.gcloud("ai-platform", "jobs", "submit", "training", "xgb_bad",
                          "--master-image-uri", IMAGE, "--region", "us-central1", "--",
                          "--training_data_path=gs://%s/data.csv" % BUCKET, "--eta=1.5", ok=False)
        self.assertNotEqual(run.rc, 0, run)
        self.assertIn("INVALID_ARGUMENT", run.err)
        self.assertIn("trainingInput.args[1]", run.err)
        self.assertIn("--eta must be in the range [0, 1]; got 1.5", run.err)

        # STANDARD_1 has parameter servers, which the distributed XGBoost algorithm refuses.
        run = self.gcloud("ai-platform", "jobs", "submit", "training", "xgb_dist_bad",
                          "--master-image-uri", "gcr.io/cloud-ml-algos/xgboost_dist",
                          "--scale-tier", "STANDARD_1", "--region", "us-central1", "--",
                          "--training_data_path=gs://%s/data.csv" % BUCKET, ok=False)
        self.assertNotEqual(run.rc, 0, run)
        self.assertIn("INVALID_ARGUMENT", run.err)
        self.assertIn("do not specify any parameter servers", run.err)

        image = "gcr.io/cloud-ml-algos/image_classification:latest"
        run = self.gcloud("ai-platform", "jobs", "submit", "training", "image_1",
                          "--master-image-uri", image, "--region", "us-central1", "--",
                          "--training_data_path=gs://%s/data.csv" % BUCKET, ok=False)
        self.assertNotEqual(run.rc, 0, run)
        self.assertIn("FAILED_PRECONDITION", run.err)
        self.assertIn("built-in algorithm %s" % image, run.err)
        run = self.gcloud("ai-platform", "jobs", "list", "--format", "value(jobId)")
        self.assertNotIn("xgb_bad", run.out)
        self.assertNotIn("xgb_dist_bad", run.out)
        self.assertNotIn("image_1", run.out)


def _set_trainyard(path):
    global TRAINYARD
    TRAINYARD = path


if __name__ == "__main__":
    gcloud_env.main(__doc__, _set_trainyard)
